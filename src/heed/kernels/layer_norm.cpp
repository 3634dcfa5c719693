#include "heed/kernels/layer_norm.h"

#include <cmath>

namespace heed::kernels {

template <typename T>
void layer_norm_rows(const T* x, const T* gamma, const T* beta, T* y, T* mean, T* rstd,
                     std::int64_t rows, std::int64_t cols, double eps) {
#pragma omp parallel for schedule(static) if (rows * cols > 32768)
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    // Two passes (mean, then the centred squares): exact enough for the gradient checks.
    // The sums vectorise (omp simd may reorder them): a plain loop of dependent double adds
    // made the Transformer's layer norms several percent of a training step.
    double sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::int64_t c = 0; c < cols; ++c) sum += static_cast<double>(xr[c]);
    const double mu = sum / static_cast<double>(cols);
    double sq = 0;
#pragma omp simd reduction(+ : sq)
    for (std::int64_t c = 0; c < cols; ++c) {
      const double d = static_cast<double>(xr[c]) - mu;
      sq += d * d;
    }
    const T m = static_cast<T>(mu);
    const T rs = static_cast<T>(1.0 / std::sqrt(sq / static_cast<double>(cols) + eps));
    mean[r] = m;
    rstd[r] = rs;
    for (std::int64_t c = 0; c < cols; ++c) {
      T v = (xr[c] - m) * rs;
      if (gamma) v = v * gamma[c];
      if (beta) v = v + beta[c];
      yr[c] = v;
    }
  }
}

template <typename T>
void layer_norm_rows_backward(const T* x, const T* gamma, const T* mean, const T* rstd,
                              const T* dy, T* dx, T* dgamma, T* dbeta, std::int64_t rows,
                              std::int64_t cols) {
  // x^ = (x - mean) rstd, g = dy * gamma:
  //   dx = rstd (g - mean_c(g) - x^ mean_c(g x^)),  dgamma = sum_r dy x^,  dbeta = sum_r dy.
  if (dx) {
#pragma omp parallel for schedule(static) if (rows * cols > 32768)
    for (std::int64_t r = 0; r < rows; ++r) {
      const T* xr = x + r * cols;
      const T* gr = dy + r * cols;
      T* dxr = dx + r * cols;
      const T m = mean[r], rs = rstd[r];
      T sum_g = 0, sum_gx = 0;
#pragma omp simd reduction(+ : sum_g, sum_gx)
      for (std::int64_t c = 0; c < cols; ++c) {
        const T g = gamma ? gr[c] * gamma[c] : gr[c];
        sum_g += g;
        sum_gx += g * (xr[c] - m) * rs;
      }
      const T inv = T(1) / static_cast<T>(cols);
      const T a = sum_g * inv, b = sum_gx * inv;
      for (std::int64_t c = 0; c < cols; ++c) {
        const T g = gamma ? gr[c] * gamma[c] : gr[c];
        const T xh = (xr[c] - m) * rs;
        dxr[c] += rs * (g - a - xh * b);
      }
    }
  }
  if (dgamma || dbeta) {
    for (std::int64_t r = 0; r < rows; ++r) {
      const T* xr = x + r * cols;
      const T* gr = dy + r * cols;
      const T m = mean[r], rs = rstd[r];
      for (std::int64_t c = 0; c < cols; ++c) {
        if (dgamma) dgamma[c] += gr[c] * (xr[c] - m) * rs;
        if (dbeta) dbeta[c] += gr[c];
      }
    }
  }
}

#define HEED_LAYER_NORM(T)                                                                   \
  template void layer_norm_rows<T>(const T*, const T*, const T*, T*, T*, T*, std::int64_t,   \
                                   std::int64_t, double);                                   \
  template void layer_norm_rows_backward<T>(const T*, const T*, const T*, const T*, const T*, \
                                            T*, T*, T*, std::int64_t, std::int64_t);
HEED_LAYER_NORM(float)
HEED_LAYER_NORM(double)
#undef HEED_LAYER_NORM

}  // namespace heed::kernels
