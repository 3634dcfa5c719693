// Exception flags are never read, so comparisons may be treated as non-trapping and GCC
// may if-convert this file's compare-and-select loops (fast_math.h vectorises without it).
#pragma GCC optimize("no-trapping-math")

#include "heed/kernels/cross_entropy.h"

#include <algorithm>
#include <cmath>

#include "heed/kernels/fast_math.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/kernel_table.h"

// Compiled once per kernel set, into that set's namespace (kernel_table.h).
namespace heed::kernels::HEED_KERNEL_ISA {
namespace {
constexpr std::int64_t kParallelWork = std::int64_t{1} << 15;
}

template <typename T>
void cross_entropy_forward(const T* logits, std::int64_t rows, std::int64_t cols,
                           const std::int32_t* targets, std::int32_t ignore_index,
                           double label_smoothing, T* lse, double* row_loss) {
  const bool parallel = rows > 1 && rows * cols >= kParallelWork;
  const double eps = label_smoothing;
#pragma omp parallel for schedule(static) if (parallel) num_threads(num_threads())
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* x = logits + r * cols;
    // One pass for the maximum and the plain sum (label smoothing's mean of x).
    T mx = x[0], sx = 0;
#pragma omp simd reduction(max : mx) reduction(+ : sx)
    for (std::int64_t c = 0; c < cols; ++c) {
      mx = x[c] > mx ? x[c] : mx;  // not std::max: that form stays scalar (softmax.cpp)
      sx += x[c];
    }
    T s = 0;
#pragma omp simd reduction(+ : s)
    for (std::int64_t c = 0; c < cols; ++c) s += fast_exp(x[c] - mx);
    const T l = mx + std::log(s);
    lse[r] = l;
    const std::int32_t t = targets[r];
    if (t == ignore_index) {
      row_loss[r] = 0;
      continue;
    }
    double loss = (1 - eps) * static_cast<double>(l - x[t]);
    if (eps != 0) {
      // sum_c (lse - x_c) / cols = lse - mean(x)
      loss += eps * (static_cast<double>(l) - static_cast<double>(sx) / static_cast<double>(cols));
    }
    row_loss[r] = loss;
  }
}

template <typename T>
void cross_entropy_backward(const T* logits, const T* lse, std::int64_t rows, std::int64_t cols,
                            const std::int32_t* targets, std::int32_t ignore_index,
                            double label_smoothing, T scale, T* dlogits) {
  const bool parallel = rows > 1 && rows * cols >= kParallelWork;
  const T smooth = static_cast<T>(label_smoothing / static_cast<double>(cols));
  const T hit = static_cast<T>(1 - label_smoothing);
#pragma omp parallel for schedule(static) if (parallel) num_threads(num_threads())
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int32_t t = targets[r];
    if (t == ignore_index) continue;
    const T* x = logits + r * cols;
    T* d = dlogits + r * cols;
    const T l = lse[r];
#pragma omp simd
    for (std::int64_t c = 0; c < cols; ++c) d[c] += scale * (fast_exp(x[c] - l) - smooth);
    d[t] -= scale * hit;
  }
}

#define HEED_INSTANTIATE(T)                                                                       \
  template void cross_entropy_forward<T>(const T*, std::int64_t, std::int64_t,                    \
                                         const std::int32_t*, std::int32_t, double, T*, double*); \
  template void cross_entropy_backward<T>(const T*, const T*, std::int64_t, std::int64_t,         \
                                          const std::int32_t*, std::int32_t, double, T, T*);
HEED_INSTANTIATE(float)
HEED_INSTANTIATE(double)
#undef HEED_INSTANTIATE

}  // namespace heed::kernels::HEED_KERNEL_ISA
