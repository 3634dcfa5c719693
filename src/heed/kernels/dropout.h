#pragma once
// Inverted dropout mask: each element is kept with probability 1 - p and then scaled by
// 1 / (1 - p), so the expectation is unchanged and evaluation needs no rescaling.
#include <cstdint>

#include "heed/base/random.h"

namespace heed::kernels {

// mask[i] = 1 / (1 - p) with probability 1 - p, else 0; p in [0, 1] (p == 1: all zero).
// One 64-bit draw from rng per call is the key of a counter-based generator (Philox4x32-10,
// Salmon et al. 2011, as Debian's Random123 defines it), each of whose 32-bit words decides
// two elements by its halves: element 128 j + 32 w + t (w < 4, t < 16) is kept when the low
// 16 bits of word w of counter 16 j + t are >= p 2^16 (rounded), element 128 j + 32 w + 16 + t
// when its high 16 bits are. So p takes effect in steps of 2^-16 (p = 0.1 drops 6,554 in
// 65,536, 0.100006; below 2^-17 nothing is dropped): half the generator's work of one word
// an element, which cost a tenth of a small Transformer's training step. The counters are
// independent of each other, so the mask is filled by every thread at once and is the same
// bits at any thread count, and a run repeats bit for bit.
template <typename T>
void dropout_mask(T* mask, std::int64_t n, double p, Rng& rng);

// x[i] *= mask[i] in place, for the mask dropout_mask would write from the same rng state,
// without writing the mask anywhere (or x[i] = max(x[i], 0) mask[i] with relu: ReLU and then
// dropout in one pass). For an op whose backward needs no mask: after ReLU, an element was
// kept exactly where the output is > 0, and its gradient is then scaled by
// dropout_keep_scale(p).
template <typename T>
void dropout_apply(T* x, std::int64_t n, double p, Rng& rng, bool relu = false);

// 1 / (1 - p): the factor a kept element is scaled by.
template <typename T>
T dropout_keep_scale(double p) {
  return static_cast<T>(1.0 / (1.0 - p));
}

}  // namespace heed::kernels
