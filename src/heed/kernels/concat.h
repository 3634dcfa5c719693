#pragma once
// Block copies behind concat, split and stack. A tensor cut along dimension d is viewed
// as (outer x width) with outer = product of the dimensions before d and width = size(d)
// times the product of those after it; each part is then one column band of the output.
#include <algorithm>
#include <cstdint>

namespace heed::kernels {

// dst[r * dst_ld + c] = src[r * src_ld + c] for r < rows, c < cols.
template <typename T>
void copy_block(const T* src, std::int64_t src_ld, T* dst, std::int64_t dst_ld, std::int64_t rows,
                std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r)
    std::copy(src + r * src_ld, src + r * src_ld + cols, dst + r * dst_ld);
}

// dst[r * dst_ld + c] += src[r * src_ld + c] for r < rows, c < cols.
template <typename T>
void add_block(const T* src, std::int64_t src_ld, T* dst, std::int64_t dst_ld, std::int64_t rows,
               std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* s = src + r * src_ld;
    T* d = dst + r * dst_ld;
    for (std::int64_t c = 0; c < cols; ++c) d[c] += s[c];
  }
}

}  // namespace heed::kernels
