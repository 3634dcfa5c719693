#include "heed/kernels/dropout.h"

#include <cmath>

namespace heed::kernels {

template <typename T>
void dropout_mask(T* mask, std::int64_t n, double p, Rng& rng) {
  // Keep when a uniform 32-bit integer is >= p * 2^32.
  const auto threshold = static_cast<std::uint64_t>(std::llround(p * 4294967296.0));
  const T keep = p < 1 ? static_cast<T>(1.0 / (1.0 - p)) : T(0);
  std::int64_t i = 0;
  for (; i + 1 < n; i += 2) {
    const std::uint64_t bits = rng.next();
    mask[i] = (bits & 0xffffffffu) >= threshold ? keep : T(0);
    mask[i + 1] = (bits >> 32) >= threshold ? keep : T(0);
  }
  if (i < n) mask[i] = (rng.next() & 0xffffffffu) >= threshold ? keep : T(0);
}

template void dropout_mask<float>(float*, std::int64_t, double, Rng&);
template void dropout_mask<double>(double*, std::int64_t, double, Rng&);

}  // namespace heed::kernels
