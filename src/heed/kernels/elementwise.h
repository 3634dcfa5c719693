#pragma once
// Element-wise kernels over contiguous arrays of n elements: forward maps and the backward
// maps that accumulate (dx += ...) into a gradient buffer. Plain loops over raw pointers
// that the compiler vectorises; header-only so they inline into fused callers.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace heed::kernels {

// exp without a libm call, so that loops over it vectorise (an order of magnitude faster
// than std::exp per element): Cephes' expf polynomial after the range reduction
// x = n ln2 + r, relative error below 1e-7. Underflows to exactly 0 below -87.33, +inf
// above 88.3. Loops vectorise only where trapping math is off: kernel files that use it
// in hot loops start with #pragma GCC optimize("no-trapping-math") (we never read the FP
// exception flags). The double version is std::exp: double is for gradient checks.
inline float exp_approx(float x) {
  float xc = x > 88.3f ? 88.3f : x;
  xc = xc < -87.33f ? -87.33f : xc;
  const float t = xc * 1.44269504088896341f + 12582912.f;  // n = round(x / ln2) in the
  const float n = t - 12582912.f;                          // low mantissa bits of t
  float r = xc - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const std::int32_t e = std::bit_cast<std::int32_t>(t) - 0x4B400000 + 127;  // 2^n
  float y = p * std::bit_cast<float>(e << 23);
  y = x < -87.33f ? 0.f : y;
  y = x > 88.3f ? std::numeric_limits<float>::infinity() : y;
  return y;
}
inline double exp_approx(double x) { return std::exp(x); }

// Neither branch overflows: exp of a non-positive argument only.
inline double sigmoid(double x) {
  if (x >= 0) return 1 / (1 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1 + e);
}
// exp_approx saturates cleanly (to 0 or +inf), so no branch is needed: exactly 0 and 1 at
// the extremes.
inline float sigmoid(float x) { return 1.f / (1.f + exp_approx(-x)); }

// tanh through exp_approx, odd-symmetric; below |x| = 1/4 a Taylor polynomial avoids the
// cancellation in 1 - e^{-2|x|}. Relative error about 2e-7.
inline float tanh_approx(float x) {
  const float a = std::abs(x);
  const float t = exp_approx(-2.f * a);
  float y = (1.f - t) / (1.f + t);
  const float a2 = a * a;
  const float small =
      a * (1.f + a2 * (-1.f / 3 + a2 * (2.f / 15 + a2 * (-17.f / 315 + a2 * (62.f / 2835)))));
  y = a < 0.25f ? small : y;
  return x < 0.f ? -y : y;
}
inline double tanh_approx(double x) { return std::tanh(x); }

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
  for (std::int64_t i = 0; i < n; ++i) y[i] = tanh_approx(x[i]);
}
// dx += dy (1 - y^2), from the output y = tanh(x)
template <typename T>
void tanh_backward(const T* y, const T* dy, T* dx, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) dx[i] += dy[i] * (T(1) - y[i] * y[i]);
}

template <typename T>
void sigmoid_forward(const T* x, T* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = sigmoid(x[i]);
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

template <typename T>
void exp_forward(const T* x, T* y, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) y[i] = exp_approx(x[i]);
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
