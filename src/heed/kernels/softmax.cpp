// Exception flags are never read, so comparisons may be treated as non-trapping and GCC
// may if-convert this file's compare-and-select loops (fast_math.h vectorises without it).
#pragma GCC optimize("no-trapping-math")

#include "heed/kernels/softmax.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "heed/kernels/fast_math.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/kernel_table.h"

// Compiled once per kernel set, into that set's namespace (kernel_table.h).
namespace heed::kernels::HEED_KERNEL_ISA {
namespace {

// Rows are independent; threads only pay off on large blocks.
constexpr std::int64_t kParallelWork = std::int64_t{1} << 16;

template <typename T>
constexpr T kNegInf = -std::numeric_limits<T>::infinity();

// Row maximum over kept positions; -inf when none is kept. Written `v > mx ? v : mx`, not
// std::max(mx, v): GCC vectorises the simd max-reduction only in this form (std::max's left
// bias left it a scalar chain, 16x slower over a vocabulary-wide row). Same result: a NaN
// is skipped either way.
template <typename T>
T row_max(const T* x, std::int64_t cols, const std::uint8_t* m) {
  T mx = kNegInf<T>;
  if (!m) {
#pragma omp simd reduction(max : mx)
    for (std::int64_t c = 0; c < cols; ++c) mx = x[c] > mx ? x[c] : mx;
  } else {
#pragma omp simd reduction(max : mx)
    for (std::int64_t c = 0; c < cols; ++c) {
      const T v = m[c] ? x[c] : kNegInf<T>;
      mx = v > mx ? v : mx;
    }
  }
  // OpenMP starts each lane of a max reduction at the type's least value: -inf under GCC,
  // the lowest finite number under clang, where a row with nothing kept comes out as
  // lowest(). Put -inf back unless lowest() really is the row's maximum.
  if (mx == std::numeric_limits<T>::lowest()) {
    bool present = false;
    for (std::int64_t c = 0; c < cols && !present; ++c)
      present = (!m || m[c]) && x[c] == std::numeric_limits<T>::lowest();
    if (!present) mx = kNegInf<T>;
  }
  return mx;
}

// y[c] = exp(x[c] - mx) (0 where masked); returns the sum.
template <typename T>
T exp_shifted(const T* x, T mx, T* y, std::int64_t cols, const std::uint8_t* m) {
  T s = 0;
  if (!m) {
#pragma omp simd reduction(+ : s)
    for (std::int64_t c = 0; c < cols; ++c) {
      y[c] = fast_exp(x[c] - mx);
      s += y[c];
    }
  } else {
#pragma omp simd reduction(+ : s)
    for (std::int64_t c = 0; c < cols; ++c) {
      y[c] = m[c] ? fast_exp(x[c] - mx) : T(0);
      s += y[c];
    }
  }
  return s;
}

// The first c with x[c] == v (cols when there is none). Blocks of 64 are tested with a
// vectorised any-equal and only the block that holds v is scanned one by one: a scalar
// search over a vocabulary-wide row cost as much as the maximum itself.
template <typename T>
std::int64_t first_index_of(const T* x, std::int64_t cols, T v) {
  constexpr std::int64_t kBlock = 64;
  std::int64_t c0 = 0;
  for (; c0 + kBlock <= cols; c0 += kBlock) {
    int hit = 0;
#pragma omp simd reduction(| : hit)
    for (std::int64_t c = c0; c < c0 + kBlock; ++c) hit |= x[c] == v ? 1 : 0;
    if (hit) break;
  }
  // A plain loop, not std::find: a library template this file instantiated could be the
  // copy the linker keeps for the whole program (kernel_table.h).
  while (c0 < cols && x[c0] != v) ++c0;
  return c0;
}

// sum_c exp(x[c] - mx), read-only.
template <typename T>
T sum_exp_shifted(const T* x, T mx, std::int64_t cols) {
  T s = 0;
#pragma omp simd reduction(+ : s)
  for (std::int64_t c = 0; c < cols; ++c) s += fast_exp(x[c] - mx);
  return s;
}

template <typename T, bool kLog>
void softmax_impl(const T* x, T* y, std::int64_t rows, std::int64_t cols, const std::uint8_t* mask,
                  std::int64_t mask_rows) {
  const bool parallel = rows > 1 && rows * cols >= kParallelWork;
#pragma omp parallel for schedule(static) if (parallel) num_threads(num_threads())
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    const std::uint8_t* m = mask ? mask + (r % mask_rows) * cols : nullptr;
    const T mx = row_max(xr, cols, m);
    if (mx == kNegInf<T>) {  // everything masked (or -inf): no distribution to speak of
      std::fill(yr, yr + cols, kLog ? kNegInf<T> : T(0));
      continue;
    }
    const T s = exp_shifted(xr, mx, yr, cols, m);
    if constexpr (kLog) {
      const T lse = mx + std::log(s);
      for (std::int64_t c = 0; c < cols; ++c) yr[c] = xr[c] - lse;
      if (m)
        for (std::int64_t c = 0; c < cols; ++c)
          if (!m[c]) yr[c] = kNegInf<T>;
    } else {
      const T inv = T(1) / s;
      for (std::int64_t c = 0; c < cols; ++c) yr[c] *= inv;
    }
  }
}

}  // namespace

template <typename T>
void softmax_rows(const T* x, T* y, std::int64_t rows, std::int64_t cols, const std::uint8_t* mask,
                  std::int64_t mask_rows) {
  softmax_impl<T, false>(x, y, rows, cols, mask, mask_rows);
}

template <typename T>
void log_softmax_rows(const T* x, T* y, std::int64_t rows, std::int64_t cols,
                      const std::uint8_t* mask, std::int64_t mask_rows) {
  softmax_impl<T, true>(x, y, rows, cols, mask, mask_rows);
}

template <typename T>
void softmax_rows_backward(const T* y, const T* dy, T* dx, std::int64_t rows, std::int64_t cols) {
  const bool parallel = rows > 1 && rows * cols >= kParallelWork;
#pragma omp parallel for schedule(static) if (parallel) num_threads(num_threads())
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* yr = y + r * cols;
    const T* gr = dy + r * cols;
    T* dr = dx + r * cols;
    T dot = 0;
#pragma omp simd reduction(+ : dot)
    for (std::int64_t c = 0; c < cols; ++c) dot += gr[c] * yr[c];
    for (std::int64_t c = 0; c < cols; ++c) dr[c] += yr[c] * (gr[c] - dot);
  }
}

template <typename T>
void log_softmax_rows_backward(const T* y, const T* dy, T* dx, std::int64_t rows,
                               std::int64_t cols) {
  const bool parallel = rows > 1 && rows * cols >= kParallelWork;
#pragma omp parallel for schedule(static) if (parallel) num_threads(num_threads())
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* yr = y + r * cols;
    const T* gr = dy + r * cols;
    T* dr = dx + r * cols;
    T s = 0;
#pragma omp simd reduction(+ : s)
    for (std::int64_t c = 0; c < cols; ++c) s += gr[c];
#pragma omp simd
    for (std::int64_t c = 0; c < cols; ++c)
      dr[c] += yr[c] == kNegInf<T> ? T(0) : gr[c] - fast_exp(yr[c]) * s;
  }
}

template <typename T>
void argmax_log_prob_rows(const T* x, std::int64_t rows, std::int64_t cols, std::int32_t* index,
                          T* log_prob) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;
    const T mx = row_max(xr, cols, static_cast<const std::uint8_t*>(nullptr));
    if (mx == kNegInf<T>) {
      index[r] = 0;
      log_prob[r] = kNegInf<T>;
      continue;
    }
    index[r] = static_cast<std::int32_t>(first_index_of(xr, cols, mx));
    log_prob[r] = -std::log(sum_exp_shifted(xr, mx, cols));
  }
}

template <typename T>
void log_sum_exp_rows(const T* x, std::int64_t rows, std::int64_t cols, T* lse) {
  const bool parallel = rows > 1 && rows * cols >= kParallelWork;
#pragma omp parallel for schedule(static) if (parallel) num_threads(num_threads())
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;
    const T mx = row_max(xr, cols, static_cast<const std::uint8_t*>(nullptr));
    lse[r] = mx == kNegInf<T> ? kNegInf<T> : mx + std::log(sum_exp_shifted(xr, mx, cols));
  }
}

#define HEED_INSTANTIATE(T)                                                                        \
  template void argmax_log_prob_rows<T>(const T*, std::int64_t, std::int64_t, std::int32_t*, T*);  \
  template void log_sum_exp_rows<T>(const T*, std::int64_t, std::int64_t, T*);                     \
  template void softmax_rows<T>(const T*, T*, std::int64_t, std::int64_t, const std::uint8_t*,     \
                                std::int64_t);                                                     \
  template void log_softmax_rows<T>(const T*, T*, std::int64_t, std::int64_t, const std::uint8_t*, \
                                    std::int64_t);                                                 \
  template void softmax_rows_backward<T>(const T*, const T*, T*, std::int64_t, std::int64_t);      \
  template void log_softmax_rows_backward<T>(const T*, const T*, T*, std::int64_t, std::int64_t);
HEED_INSTANTIATE(float)
HEED_INSTANTIATE(double)
#undef HEED_INSTANTIATE

}  // namespace heed::kernels::HEED_KERNEL_ISA
