#include "heed/kernels/embedding.h"

#include <algorithm>

namespace heed::kernels {

template <typename T>
void embedding_lookup(const T* weight, const std::int32_t* ids, std::int64_t n, std::int64_t dim,
                      T* out) {
  for (std::int64_t i = 0; i < n; ++i) {
    const T* src = weight + static_cast<std::int64_t>(ids[i]) * dim;
    std::copy(src, src + dim, out + i * dim);
  }
}

// Serial on purpose: ids repeat (every PAD, every frequent word), so rows collide, and the
// per-row work is a short vectorised add.
template <typename T>
void scatter_add_rows(const T* dout, const std::int32_t* ids, std::int64_t n, std::int64_t dim,
                      std::int64_t skip_id, T* dweight) {
  for (std::int64_t i = 0; i < n; ++i) {
    if (ids[i] == skip_id) continue;
    T* dst = dweight + static_cast<std::int64_t>(ids[i]) * dim;
    const T* src = dout + i * dim;
    for (std::int64_t c = 0; c < dim; ++c) dst[c] += src[c];
  }
}

#define HEED_INSTANTIATE(T)                                                                    \
  template void embedding_lookup<T>(const T*, const std::int32_t*, std::int64_t, std::int64_t,  \
                                    T*);                                                       \
  template void scatter_add_rows<T>(const T*, const std::int32_t*, std::int64_t, std::int64_t, \
                                    std::int64_t, T*);
HEED_INSTANTIATE(float)
HEED_INSTANTIATE(double)
#undef HEED_INSTANTIATE

}  // namespace heed::kernels
