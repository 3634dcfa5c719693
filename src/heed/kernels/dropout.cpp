#include "heed/kernels/dropout.h"

#include <algorithm>
#include <cmath>

#include "heed/kernels/parallel_chunks.h"

namespace heed::kernels {
namespace {

// Philox4x32-10 (Salmon et al. 2011) on kLanes counters at once, kept in four arrays of
// words (one per output word), so that each round is a loop over the counters that the
// compiler vectorises. Random123's own philox4x32_R works on one counter's struct at a
// time and does not vectorise (it cost more than the sequential generator it replaced:
// docs/PERFORMANCE.md, "Dropout masks"); tests/kernels check these words against it bit
// for bit.
constexpr int kLanes = 16;
constexpr std::int64_t kChunk = 8 * kLanes;  // mask elements per call of philox_chunk

inline void philox_chunk(std::uint64_t first_counter, std::uint64_t key,
                         std::uint32_t (&x)[4][kLanes]) {
  for (int t = 0; t < kLanes; ++t) {
    const std::uint64_t c = first_counter + static_cast<std::uint64_t>(t);
    x[0][t] = static_cast<std::uint32_t>(c);
    x[1][t] = static_cast<std::uint32_t>(c >> 32);
    x[2][t] = 0;
    x[3][t] = 0;
  }
  std::uint32_t k0 = static_cast<std::uint32_t>(key), k1 = static_cast<std::uint32_t>(key >> 32);
  for (int round = 0; round < 10; ++round) {
#pragma omp simd
    for (int t = 0; t < kLanes; ++t) {
      const std::uint64_t p0 = std::uint64_t{0xD2511F53u} * x[0][t];
      const std::uint64_t p1 = std::uint64_t{0xCD9E8D57u} * x[2][t];
      const std::uint32_t y0 = static_cast<std::uint32_t>(p1 >> 32) ^ x[1][t] ^ k0;
      const std::uint32_t y2 = static_cast<std::uint32_t>(p0 >> 32) ^ x[3][t] ^ k1;
      x[1][t] = static_cast<std::uint32_t>(p1);
      x[3][t] = static_cast<std::uint32_t>(p0);
      x[0][t] = y0;
      x[2][t] = y2;
    }
    k0 += 0x9E3779B9u;  // the key schedule's Weyl constants
    k1 += 0xBB67AE85u;
  }
}

// The mask dropout_mask describes, handed chunk by chunk to use(first, m, len): elements
// [first, first + len) of the mask are m[0, len), written to out + first where out is given,
// else to a buffer on the stack. Chunks run on every thread at once.
template <typename T, typename Use>
void for_each_mask_chunk(std::int64_t n, double p, Rng& rng, T* out, Use use) {
  const std::uint64_t key = rng.next();
  // Keep when a uniform 16-bit integer is >= p 2^16 (2^16 and above: nothing is kept).
  const auto threshold = static_cast<std::uint64_t>(std::llround(p * 65536.0));
  const bool none = threshold >= (std::uint64_t{1} << 16);
  const auto limit = static_cast<std::uint32_t>(threshold);
  const T keep = dropout_keep_scale<T>(p);
  // Chunk j holds elements [128 j, 128 j + 128): the low half of word w of counter 16 j + t is
  // element 128 j + 32 w + t, its high half element 128 j + 32 w + 16 + t. About five integer
  // operations an element: worth a thread from a few thousand chunks on.
  const std::int64_t chunks = (n + kChunk - 1) / kChunk;
  if (p <= 0 || none) {  // every element kept (1) or none (0)
    alignas(64) T buf[kChunk];
    for (std::int64_t j = 0; j < chunks; ++j) {
      const std::int64_t len = std::min(kChunk, n - j * kChunk);
      T* m = out ? out + j * kChunk : buf;
      std::fill(m, m + len, p <= 0 ? T(1) : T(0));
      use(j * kChunk, static_cast<const T*>(m), len);
    }
    return;
  }
  parallel_chunks(chunks, 4 * kChunk, [=](std::int64_t j0, std::int64_t j1) {
    alignas(64) T buf[kChunk];
    std::uint32_t x[4][kLanes];
    for (std::int64_t j = j0; j < j1; ++j) {
      philox_chunk(static_cast<std::uint64_t>(j) * kLanes, key, x);
      const std::int64_t len = std::min(kChunk, n - j * kChunk);
      T* m = out ? out + j * kChunk : buf;
      if (len == kChunk) {  // branch-free, so that it vectorises
        for (int w = 0; w < 4; ++w) {
#pragma omp simd
          for (int t = 0; t < kLanes; ++t) {
            m[w * 2 * kLanes + t] = (x[w][t] & 0xffffu) >= limit ? keep : T(0);
            m[w * 2 * kLanes + kLanes + t] = (x[w][t] >> 16) >= limit ? keep : T(0);
          }
        }
      } else {
        for (std::int64_t e = 0; e < len; ++e) {
          const std::uint32_t word = x[e / (2 * kLanes)][e % kLanes];
          const std::uint32_t half = e % (2 * kLanes) < kLanes ? word & 0xffffu : word >> 16;
          m[e] = static_cast<T>(half >= limit) * keep;
        }
      }
      use(j * kChunk, static_cast<const T*>(m), len);
    }
  });
}

}  // namespace

template <typename T>
void dropout_mask(T* mask, std::int64_t n, double p, Rng& rng) {
  for_each_mask_chunk<T>(n, p, rng, mask, [](std::int64_t, const T*, std::int64_t) {});
}

template <typename T>
void dropout_apply(T* x, std::int64_t n, double p, Rng& rng, bool relu) {
  T* const no_output = nullptr;  // the mask stays on the stack, chunk by chunk
  for_each_mask_chunk<T>(n, p, rng, no_output, [x, relu](std::int64_t first, const T* m,
                                                         std::int64_t len) {
    T* v = x + first;
    if (relu) {  // max(v, 0) as std::max and relu_forward compute it (NaN stays NaN)
#pragma omp simd
      for (std::int64_t e = 0; e < len; ++e) v[e] = (v[e] < T(0) ? T(0) : v[e]) * m[e];
    } else {
#pragma omp simd
      for (std::int64_t e = 0; e < len; ++e) v[e] *= m[e];
    }
  });
}

template void dropout_mask<float>(float*, std::int64_t, double, Rng&);
template void dropout_mask<double>(double*, std::int64_t, double, Rng&);
template void dropout_apply<float>(float*, std::int64_t, double, Rng&, bool);
template void dropout_apply<double>(double*, std::int64_t, double, Rng&, bool);

}  // namespace heed::kernels
