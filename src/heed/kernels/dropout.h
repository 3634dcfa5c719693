#pragma once
// Inverted dropout mask: each element is kept with probability 1 - p and then scaled by
// 1 / (1 - p), so the expectation is unchanged and evaluation needs no rescaling.
#include <cstdint>

#include "heed/base/random.h"

namespace heed::kernels {

// mask[i] = 1 / (1 - p) with probability 1 - p, else 0; p in [0, 1] (p == 1: all zero).
// Draws 32 random bits per element from rng (two per 64-bit draw), so a run repeats
// bit for bit.
template <typename T>
void dropout_mask(T* mask, std::int64_t n, double p, Rng& rng);

}  // namespace heed::kernels
