#pragma once
// 1-D convolution (cross-correlation, as PyTorch's conv1d) of single-channel sequences with k
// filters of odd width r, zero padding (r - 1) / 2 on each side so that the output keeps the
// input's length, written channels last: x (B, m), w (k, 1, r), y (B, m, k) with
//   y[b, j, c] = sum_i w[c, i] x[b, j + i - (r - 1) / 2]     (x = 0 outside [0, m))
// The location features of docs/MODELS.md#location-aware-attention: the previous step's
// attention weights convolved, one row per source position, as the attention's projection
// reads them. Direct loops: B m k r multiply-adds, small beside the attention step.
#include <cstdint>

namespace heed::kernels {

struct Conv1dShape {
  std::int64_t B = 0, m = 0;  // sequences and their length
  std::int64_t k = 0, r = 0;  // filters and their (odd) width
};

template <typename T>
void conv1d_same_forward(const T* x, const T* w, T* y, const Conv1dShape& s);

// Accumulates into dx (B, m) and dw (k, 1, r), each skipped when null.
template <typename T>
void conv1d_same_backward(const T* x, const T* w, const T* dy, T* dx, T* dw, const Conv1dShape& s);

}  // namespace heed::kernels
