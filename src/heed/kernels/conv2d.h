#pragma once
// 2-D convolution (cross-correlation, as PyTorch's conv2d) over NCHW images by im2col and
// kernels::gemm (docs/ENGINE.md, "Images"). x (N, C, H, W), w (O, C, KH, KW), b (O) or
// null, y (N, O, OH, OW) with OH = (H + 2 pad - KH) / stride + 1 (likewise OW); pixels
// outside the image are zeros (padding).
//
// Per image, col = im2col(x_n) is (C KH KW) x (OH OW): row (c, i, j), column (oh, ow)
// holds x_n[c, oh stride - pad + i, ow stride - pad + j]; then y_n = w col (+ b). The
// caller passes col's memory (conv2d_workspace elements); the kernels allocate nothing.
#include <cstdint>

namespace heed::kernels {

struct Conv2dShape {
  std::int64_t N = 0, C = 0, H = 0, W = 0;  // input
  std::int64_t O = 0, KH = 0, KW = 0;        // filters
  std::int64_t stride = 1, pad = 0;
  std::int64_t OH() const { return (H + 2 * pad - KH) / stride + 1; }
  std::int64_t OW() const { return (W + 2 * pad - KW) / stride + 1; }
  std::int64_t workspace() const { return C * KH * KW * OH() * OW(); }
};

// col = im2col(x) for one image x (C, H, W).
template <typename T>
void im2col(const T* x, const Conv2dShape& s, T* col);

// dx += the adjoint of im2col applied to col (each column entry added back to its pixel;
// padding entries dropped).
template <typename T>
void col2im_add(const T* col, const Conv2dShape& s, T* dx);

template <typename T>
void conv2d_forward(const T* x, const T* w, const T* b, T* y, const Conv2dShape& s, T* col);

// Accumulates into dx, dw and db, each skipped when null.
template <typename T>
void conv2d_backward(const T* x, const T* w, const T* dy, T* dx, T* dw, T* db,
                     const Conv2dShape& s, T* col);

}  // namespace heed::kernels
