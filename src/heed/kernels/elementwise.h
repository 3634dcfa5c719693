#pragma once
// Element-wise kernels over contiguous arrays of n elements: forward maps and the backward
// maps that accumulate (dx += ...) into a gradient buffer. Plain loops over raw pointers
// that the compiler vectorises; header-only so they inline into fused callers. exp, tanh
// and sigmoid are the shared approximations of fast_math.h.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "heed/kernels/fast_math.h"

namespace heed::kernels {

template <typename T>
void add(const T* a, const T* b, T* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = a[i] + b[i];
}

template <typename T>
void sub(const T* a, const T* b, T* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = a[i] - b[i];
}

template <typename T>
void mul(const T* a, const T* b, T* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = a[i] * b[i];
}

// y = c * x
template <typename T>
void scale(const T* x, T c, T* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = c * x[i];
}

// dst += src
template <typename T>
void accumulate(const T* src, T* dst, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dst[i] += src[i];
}

// dst += c * src
template <typename T>
void accumulate_scaled(const T* src, T c, T* dst, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dst[i] += c * src[i];
}

// dst += a * b
template <typename T>
void accumulate_mul(const T* a, const T* b, T* dst, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dst[i] += a[i] * b[i];
}

// y[r, c] = x[r, c] + v[c]   (row broadcast of a bias vector)
template <typename T>
void add_rows(const T* x, const T* v, T* y, std::int64_t rows, std::int64_t cols) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const T* xr = x + r * cols;
    T* yr = y + r * cols;
    for (std::int64_t c = 0; c < cols; ++c) yr[c] = xr[c] + v[c];
  }
}

template <typename T>
void tanh_forward(const T* x, T* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = fast_tanh(x[i]);
}
// dx += dy (1 - y^2), from the output y = tanh(x)
template <typename T>
void tanh_backward(const T* y, const T* dy, T* dx, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dx[i] += dy[i] * (T(1) - y[i] * y[i]);
}

template <typename T>
void sigmoid_forward(const T* x, T* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = fast_sigmoid(x[i]);
}
// dx += dy y (1 - y), from the output y = sigmoid(x)
template <typename T>
void sigmoid_backward(const T* y, const T* dy, T* dx, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dx[i] += dy[i] * y[i] * (T(1) - y[i]);
}

template <typename T>
void relu_forward(const T* x, T* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = std::max(x[i], T(0));
}
// dx += dy [y > 0]  (PyTorch: the gradient at exactly 0 is 0)
template <typename T>
void relu_backward(const T* y, const T* dy, T* dx, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dx[i] += y[i] > T(0) ? dy[i] : T(0);
}
// dx = dy [y > 0]: relu_backward into a buffer that it overwrites
template <typename T>
void relu_backward_store(const T* y, const T* dy, T* dx, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dx[i] = y[i] > T(0) ? dy[i] : T(0);
}

template <typename T>
void exp_forward(const T* x, T* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = fast_exp(x[i]);
}

template <typename T>
void log_forward(const T* x, T* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = std::log(x[i]);
}
// dx += dy / x
template <typename T>
void log_backward(const T* x, const T* dy, T* dx, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dx[i] += dy[i] / x[i];
}

}  // namespace heed::kernels
