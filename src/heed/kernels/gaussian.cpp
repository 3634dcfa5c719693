#include "heed/kernels/gaussian.h"

#include <cmath>
#include <numbers>

namespace heed::kernels {

template <typename T>
void gaussian_log_prob_rows(const T* x, const T* mu, T sigma, T* log_prob, std::int64_t rows,
                            std::int64_t D) {
  const T norm = static_cast<T>(D) * (std::log(sigma) + T(0.5) * std::log(T(2) * std::numbers::pi_v<T>));
  const T inv2var = T(1) / (T(2) * sigma * sigma);
  for (std::int64_t r = 0; r < rows; ++r) {
    T sq = 0;
    for (std::int64_t d = 0; d < D; ++d) {
      const T e = x[r * D + d] - mu[r * D + d];
      sq += e * e;
    }
    log_prob[r] = -sq * inv2var - norm;
  }
}

template <typename T>
void gaussian_log_prob_rows_backward(const T* x, const T* mu, T sigma, const T* dlog_prob, T* dmu,
                                     std::int64_t rows, std::int64_t D) {
  const T inv_var = T(1) / (sigma * sigma);
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t d = 0; d < D; ++d)
      dmu[r * D + d] += dlog_prob[r] * (x[r * D + d] - mu[r * D + d]) * inv_var;
}

#define HEED_INSTANTIATE(T)                                                                  \
  template void gaussian_log_prob_rows<T>(const T*, const T*, T, T*, std::int64_t,          \
                                          std::int64_t);                                    \
  template void gaussian_log_prob_rows_backward<T>(const T*, const T*, T, const T*, T*,     \
                                                   std::int64_t, std::int64_t);
HEED_INSTANTIATE(float)
HEED_INSTANTIATE(double)
#undef HEED_INSTANTIATE

}  // namespace heed::kernels
