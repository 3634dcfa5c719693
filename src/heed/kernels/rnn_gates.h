#pragma once
// Gate nonlinearities for the fused GRU/LSTM step kernels, written so that a
// `#pragma omp simd` loop over a row of gates vectorises: float uses a branch-free
// exp (Cephes polynomial, about 1 ulp) instead of a libm call the compiler cannot
// vectorise without -ffast-math; double keeps libm, because it exists for
// finite-difference gradient checks, which need smooth, exact functions.
//
// Only e^y for y <= 0 is ever needed (sigmoid and tanh are written in e^{-|x|}), so nothing
// overflows.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace heed::kernels::rnn {

// Bitwise select (mask all ones: a, all zeros: b); keeps both arms computed, so the loop
// stays free of branches.
inline float select_bits(std::uint32_t mask, float a, float b) {
  return std::bit_cast<float>((std::bit_cast<std::uint32_t>(a) & mask) |
                              (std::bit_cast<std::uint32_t>(b) & ~mask));
}

// e^y for y <= 0 (0 below about -87.7, so e^-inf = 0; NaN stays NaN).
inline float exp_nonpositive(float y) {
  // Clamp to -88 on the bits: for y <= 0 a larger magnitude has larger bits, and an integer
  // min neither traps nor makes GCC specialise the code behind a float compare (which stops
  // vectorisation under the default -ftrapping-math). NaN is restored at the end.
  const float x = std::bit_cast<float>(std::min(std::bit_cast<std::uint32_t>(y), 0xC2B00000u));
  // n = round(x / ln 2) in [-127, 0] with the 1.5 * 2^23 trick; r = x - n ln 2 in two parts.
  const float shifted = x * 1.44269504088896341f + 12582912.0f;
  const float n = shifted - 12582912.0f;
  float r = x - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  // 2^n from its exponent bits; n = -127 (below the normal range) gives exactly 0.
  const std::int32_t ni = static_cast<std::int32_t>(n);
  const std::uint32_t e = ni < -126 ? 0u : static_cast<std::uint32_t>(ni + 127) << 23;
  const std::uint32_t is_nan =
      (std::bit_cast<std::uint32_t>(y) & 0x7fffffffu) > 0x7f800000u ? 0xffffffffu : 0u;
  return select_bits(is_nan, y, p * std::bit_cast<float>(e));
}

inline float sigmoid(float x) {
  const float t = exp_nonpositive(-std::fabs(x));  // in (0, 1]
  const float s = 1.0f / (1.0f + t);
  // x < 0: σ(x) = t / (1 + t); the mask is the sign bit spread over the word.
  const std::uint32_t negative =
      static_cast<std::uint32_t>(std::bit_cast<std::int32_t>(x) >> 31);
  return select_bits(negative, t * s, s);
}
inline double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

inline float tanh(float x) {
  const float a = std::fabs(x);
  // Small |x|: odd polynomial (Cephes tanhf), avoiding the cancellation in (1 - t)/(1 + t)
  // near 0; both are computed and blended.
  const float z = x * x;
  float p = -5.70498872745e-3f;
  p = p * z + 2.06390887954e-2f;
  p = p * z - 5.37397155531e-2f;
  p = p * z + 1.33314422036e-1f;
  p = p * z - 3.33332819422e-1f;
  const float small = p * z * x + x;
  const float t = exp_nonpositive(-2.0f * a);
  const float large = std::copysign((1.0f - t) / (1.0f + t), x);
  // |x| < 0.625 compared as integers (a >= 0, so its bits order like its value).
  const std::uint32_t is_small =
      std::bit_cast<std::int32_t>(a) < std::bit_cast<std::int32_t>(0.625f) ? 0xffffffffu : 0u;
  return select_bits(is_small, small, large);
}
inline double tanh(double x) { return std::tanh(x); }

}  // namespace heed::kernels::rnn
