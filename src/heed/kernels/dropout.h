#pragma once
// Inverted dropout mask: each element is kept with probability 1 - p and then scaled by
// 1 / (1 - p), so the expectation is unchanged and evaluation needs no rescaling.
#include <cstdint>

#include "heed/base/random.h"

namespace heed::kernels {

// mask[i] = 1 / (1 - p) with probability 1 - p, else 0; p in [0, 1] (p == 1: all zero).
// One 64-bit draw from rng per call is the key of a counter-based generator (Philox4x32-10,
// Salmon et al. 2011, from Debian's Random123): element i is kept when lane i % 4 of the
// block of counter i / 4 is >= p 2^32. The blocks are independent of each other, so the
// mask is filled by every thread at once and is the same bits at any thread count, and a
// run repeats bit for bit.
template <typename T>
void dropout_mask(T* mask, std::int64_t n, double p, Rng& rng);

}  // namespace heed::kernels
