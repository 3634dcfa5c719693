#pragma once
// Max and average pooling over square windows of planes (docs/ENGINE.md, "Images"): x holds
// `planes` row-major H x W planes (N C of them for NCHW), y as many OH x OW planes with
// OH = (H - kernel) / stride + 1 (likewise OW); window (oh, ow) covers rows
// oh stride .. oh stride + kernel - 1 and the same columns. No padding: every window lies
// inside its plane. Backward kernels accumulate (dx += ...).
#include <cstdint>

namespace heed::kernels {

struct Pool2dShape {
  std::int64_t planes = 0, H = 0, W = 0, kernel = 1, stride = 1;
  std::int64_t OH() const { return (H - kernel) / stride + 1; }
  std::int64_t OW() const { return (W - kernel) / stride + 1; }
};

// y = each window's maximum; argmax = its index within the plane (row H + column), the
// first one in row-major order on ties.
template <typename T>
void max_pool2d_forward(const T* x, T* y, std::int32_t* argmax, const Pool2dShape& s);

// dx[argmax] += dy.
template <typename T>
void max_pool2d_backward(const T* dy, const std::int32_t* argmax, T* dx, const Pool2dShape& s);

// y = each window's mean.
template <typename T>
void avg_pool2d_forward(const T* x, T* y, const Pool2dShape& s);

// dx += dy / kernel^2 over each window.
template <typename T>
void avg_pool2d_backward(const T* dy, T* dx, const Pool2dShape& s);

}  // namespace heed::kernels
