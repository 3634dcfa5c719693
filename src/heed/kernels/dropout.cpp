#include "heed/kernels/dropout.h"

#include <Random123/philox.h>

#include <algorithm>
#include <cmath>

#include "heed/kernels/parallel_chunks.h"

namespace heed::kernels {

template <typename T>
void dropout_mask(T* mask, std::int64_t n, double p, Rng& rng) {
  const std::uint64_t key = rng.next();
  // Keep when a uniform 32-bit integer is >= p 2^32 (2^32 and above: nothing is kept).
  const auto threshold = static_cast<std::uint64_t>(std::llround(p * 4294967296.0));
  if (p <= 0 || threshold >= (std::uint64_t{1} << 32)) {
    std::fill(mask, mask + n, p <= 0 ? T(1) : T(0));
    return;
  }
  const T keep = static_cast<T>(1.0 / (1.0 - p));
  const r123::Philox4x32::key_type k = {
      {static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)}};
  // About 40 integer operations a counter (ten rounds for four elements): worth a thread
  // from a few thousand counters on.
  parallel_chunks((n + 3) / 4, 16, [&](std::int64_t c0, std::int64_t c1) {
    for (std::int64_t c = c0; c < c1; ++c) {
      const r123::Philox4x32::ctr_type counter = {
          {static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(c >> 32), 0u, 0u}};
      const r123::Philox4x32::ctr_type bits = philox4x32_R(10, counter, k);
      const std::int64_t lanes = std::min<std::int64_t>(4, n - 4 * c);
      for (std::int64_t l = 0; l < lanes; ++l) mask[4 * c + l] = bits.v[l] >= threshold ? keep : T(0);
    }
  });
}

template void dropout_mask<float>(float*, std::int64_t, double, Rng&);
template void dropout_mask<double>(double*, std::int64_t, double, Rng&);

}  // namespace heed::kernels
