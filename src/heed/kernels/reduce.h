#pragma once
// Row reductions and broadcasts over row-major (rows x cols) blocks.
#include <algorithm>
#include <cstdint>

#include "heed/kernels/parallel_chunks.h"

namespace heed::kernels {

// out[c] += sum_r x[r, c], in row order for every column (threads take column blocks).
template <typename T>
void sum_rows(const T* x, T* out, std::int64_t rows, std::int64_t cols) {
  parallel_chunks(
      cols, rows,
      [&](std::int64_t c0, std::int64_t c1) {
        for (std::int64_t r = 0; r < rows; ++r) {
          const T* xr = x + r * cols;
          for (std::int64_t c = c0; c < c1; ++c) out[c] += xr[c];
        }
      },
      16);
}

// y[r, c] = v[c] (threads take row blocks).
template <typename T>
void broadcast_rows(const T* v, T* y, std::int64_t rows, std::int64_t cols) {
  parallel_chunks(rows, cols, [&](std::int64_t r0, std::int64_t r1) {
    for (std::int64_t r = r0; r < r1; ++r) std::copy_n(v, cols, y + r * cols);
  });
}

// Sum of n elements, accumulated in double so long float sums keep their precision.
template <typename T>
double sum_all(const T* x, std::int64_t n) {
  double s = 0;
  for (std::int64_t i = 0; i < n; ++i) s += static_cast<double>(x[i]);
  return s;
}

// A tensor viewed as (outer, n, inner), reduced over the middle axis:
// out[o, i] = sum_k x[o, k, i]  (overwrites out).
template <typename T>
void sum_middle(const T* x, T* out, std::int64_t outer, std::int64_t n, std::int64_t inner) {
  for (std::int64_t o = 0; o < outer; ++o) {
    T* orow = out + o * inner;
    for (std::int64_t i = 0; i < inner; ++i) orow[i] = T(0);
    for (std::int64_t k = 0; k < n; ++k) {
      const T* xr = x + (o * n + k) * inner;
      for (std::int64_t i = 0; i < inner; ++i) orow[i] += xr[i];
    }
  }
}

// The adjoint of sum_middle: dx[o, k, i] += dy[o, i].
template <typename T>
void broadcast_middle_add(const T* dy, T* dx, std::int64_t outer, std::int64_t n,
                          std::int64_t inner) {
  for (std::int64_t o = 0; o < outer; ++o) {
    const T* dr = dy + o * inner;
    for (std::int64_t k = 0; k < n; ++k) {
      T* xr = dx + (o * n + k) * inner;
      for (std::int64_t i = 0; i < inner; ++i) xr[i] += dr[i];
    }
  }
}

}  // namespace heed::kernels
