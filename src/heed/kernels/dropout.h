#pragma once
// Inverted dropout mask: each element is kept with probability 1 - p and then scaled by
// 1 / (1 - p), so the expectation is unchanged and evaluation needs no rescaling.
#include <cstdint>

#include "heed/base/random.h"

namespace heed::kernels {

// mask[i] = 1 / (1 - p) with probability 1 - p, else 0; p in [0, 1] (p == 1: all zero).
// One 64-bit draw from rng per call is the key of a counter-based generator (Philox4x32-10,
// Salmon et al. 2011, as Debian's Random123 defines it): element 64 j + 16 w + t (w < 4,
// t < 16) is kept when word w of counter 16 j + t is >= p 2^32. The counters are
// independent of each other, so the mask is filled by every thread at once and is the same
// bits at any thread count, and a run repeats bit for bit.
template <typename T>
void dropout_mask(T* mask, std::int64_t n, double p, Rng& rng);

}  // namespace heed::kernels
