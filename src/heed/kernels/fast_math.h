#pragma once
// The float exp, sigmoid and tanh of every kernel's hot loops, each defined once here.
//
// Why not libm: a call to expf or tanhf keeps its loop scalar (GCC vectorises libm only under
// -ffast-math), and these functions run on every gate, attention score and logit. Written as
// polynomials with branch-free selects they vectorise inside `#pragma omp simd` loops (see
// fast_exp for plain loops).
//
// double always uses libm: double exists for the finite-difference gradient checks, which
// need smooth, correctly rounded functions.
//
// Errors against double-precision std::exp / std::tanh, measured over every float of the
// range that matters (tests/kernels/fast_math_test.cpp sweeps it densely and asserts them):
//   fast_exp      x in [-87.3, 88.3]: relative 8.53e-8 (about 1 ulp)
//   fast_sigmoid  x in [-87, 87]:     absolute 8.93e-8, relative 1.48e-7
//   fast_tanh     x in [-10, 10]:     absolute and relative 2.92e-7 (at |x| = 5.13);
//                                     |x| < 1: absolute 1.60e-7
// (the test's bounds: 8.6e-8; 9.0e-8 and 1.5e-7; 3.0e-7 and 1.7e-7)
// Those are for code compiled with fused multiply-add and optimised (-O2 and above), where
// the compiler contracts the Horner steps: every release build, whose minimum target is
// x86-64-v3 (AVX2 and FMA; docs/ENGINE.md#kernel-sets-and-target-cpus). Code that does not
// contract (the sanitizer build's -O1, the tests' -O0, a target without FMA) rounds twice per
// step: exp and sigmoid keep their bounds, tanh reaches 4.10e-7 (at |x| = 5.83), |x| < 1:
// 1.74e-7 (the test's bounds there: 4.2e-7 and 1.8e-7).
#include <bit>
#include <cmath>
#include <cstdint>

namespace heed::kernels {

namespace fast_math_detail {

// a where the mask is all ones, b where it is all zeros; both arms are computed, so the
// loop stays free of branches.
inline float select_bits(std::uint32_t mask, float a, float b) {
  return std::bit_cast<float>((std::bit_cast<std::uint32_t>(a) & mask) |
                              (std::bit_cast<std::uint32_t>(b) & ~mask));
}

}  // namespace fast_math_detail

// e^x. Method: x = n ln 2 + r with n = round(x / ln 2) and |r| <= ln 2 / 2 (ln 2 in two
// parts, so r is exact); e^r by Cephes' degree-7 polynomial for expf; 2^n built in the
// exponent bits. Special values: -inf and x below -87.68 give exactly 0 (2^n below the
// normal range; from -87.68 to -87.34 the result is subnormal); +inf and x above 88.376
// give +inf (n = 128 writes the infinity pattern; e^x itself overflows only at 88.72);
// NaN gives NaN (the clamps keep it, and it propagates through the polynomial).
// The clamps are float compares (cheaper than integer ones in a loop's scalar remainder: a
// 30-column softmax row was 15% slower with them on the bits) turned into bit masks and
// applied with select_bits. Written as `x > kMax ? kMax : x`, GCC 12 under its default
// -ftrapping-math if-converts them only where AVX-512's masked operations exist: on an AVX2
// target such a loop stayed scalar (the GRU gates of g2p greedy decoding took 4x as long,
// 17% of the profile against 4%). The masks vectorise on both, in plain and `omp simd`
// loops alike.
inline float fast_exp(float x) {
  using namespace fast_math_detail;
  constexpr float kMax = 88.72283f;  // ln FLT_MAX rounded down: n stays in [-128, 128]
  const std::uint32_t above = x > kMax ? 0xffffffffu : 0u;
  const std::uint32_t below = x < -kMax ? 0xffffffffu : 0u;
  const float xc = select_bits(above, kMax, select_bits(below, -kMax, x));
  const float t = xc * 1.44269504088896341f + 12582912.0f;  // 1.5 * 2^23: n = round(x / ln 2)
  const float n = t - 12582912.0f;                          // in the low mantissa bits of t
  float r = xc - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const std::int32_t ni = std::bit_cast<std::int32_t>(t) - 0x4B400000;
  const std::int32_t e = ni < -126 ? 0 : (ni + 127) << 23;
  return p * std::bit_cast<float>(e);
}
inline double fast_exp(double x) { return std::exp(x); }

// 1 / (1 + e^-x). fast_exp saturates to 0 and +inf, so no branch is needed: exactly 1 for
// x >= 17 (and +inf), exactly 0 below about -88.4 (and -inf); NaN gives NaN.
inline float fast_sigmoid(float x) { return 1.0f / (1.0f + fast_exp(-x)); }
// Each branch takes exp of a non-positive argument only, so neither overflows.
inline double fast_sigmoid(double x) {
  if (x >= 0) return 1 / (1 + std::exp(-x));
  const double e = std::exp(x);
  return e / (1 + e);
}

// tanh x. Method: an odd rational approximation p(x) / q(x), p of degree 13 (odd), q of
// degree 6 (even), fitted on |x| <= 7.9053; from there on the result is +-1 exactly (float
// tanh is within 2.7e-7 of 1 there), so +-inf and large |x| give +-1 and 1 - y^2 is 0.
// No exp and no blend of two formulas: of the candidates it was the fastest, and near 0 it
// keeps relative accuracy (p / q = x (1 + O(1e-8))). NaN gives NaN. For large |x| the
// discarded ratio may overflow (inf / inf); no floating-point exception flag is relied on.
inline float fast_tanh(float x) {
  using namespace fast_math_detail;
  const float x2 = x * x;
  float p = -2.76076847742355e-16f;
  p = p * x2 + 2.00018790482477e-13f;
  p = p * x2 + -8.60467152213735e-11f;
  p = p * x2 + 5.12229709037114e-08f;
  p = p * x2 + 1.48572235717979e-05f;
  p = p * x2 + 6.37261928875436e-04f;
  p = p * x2 + 4.89352455891786e-03f;
  p = p * x;
  float q = 1.19825839466702e-06f;
  q = q * x2 + 1.18534705686654e-04f;
  q = q * x2 + 2.26843463243900e-03f;
  q = q * x2 + 4.89352518554385e-03f;
  // 7.9053 <= |x| <= inf, compared as unsigned bits (NaN lies above inf, so it keeps p / q).
  const std::uint32_t mag = std::bit_cast<std::uint32_t>(x) & 0x7fffffffu;
  const std::uint32_t saturated = mag - 0x40FCF84Fu <= 0x7f800000u - 0x40FCF84Fu ? 0xffffffffu : 0u;
  return select_bits(saturated, std::copysign(1.0f, x), p / q);
}
inline double fast_tanh(double x) { return std::tanh(x); }

}  // namespace heed::kernels
