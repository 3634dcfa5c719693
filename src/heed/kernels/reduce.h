#pragma once
// Row reductions and broadcasts over row-major (rows x cols) blocks.
#include <cstdint>

namespace heed::kernels {

// out[c] += sum_r x[r, c]
template <typename T>
void sum_rows(const T* x, T* out, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;
    for (std::int64_t c = 0; c < cols; ++c) out[c] += xr[c];
  }
}

// y[r, c] = v[c]
template <typename T>
void broadcast_rows(const T* v, T* y, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    T* yr = y + r * cols;
    for (std::int64_t c = 0; c < cols; ++c) yr[c] = v[c];
  }
}

}  // namespace heed::kernels
