#include "heed/kernels/fast_math.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace heed::kernels {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

struct MaxError {
  double abs = 0, rel = 0;
};

// Worst error of f against the double-precision reference over the floats of [lo, hi]
// (same sign), visiting every 127th bit pattern: 66000 points in each binade (the documented
// bounds come from visiting all of them).
template <typename F, typename R>
MaxError sweep(F f, R ref, float lo, float hi) {
  MaxError e;
  std::uint32_t a = std::bit_cast<std::uint32_t>(lo), b = std::bit_cast<std::uint32_t>(hi);
  if (a > b) std::swap(a, b);  // negative ranges: larger magnitude, larger bits
  for (std::uint32_t u = a; u <= b; u += 127) {
    const float x = std::bit_cast<float>(u);
    const double r = ref(static_cast<double>(x));
    const double d = std::abs(static_cast<double>(f(x)) - r);
    e.abs = std::max(e.abs, d);
    if (r != 0) e.rel = std::max(e.rel, d / std::abs(r));
  }
  return e;
}

TEST(FastMath, ExpWithinItsDocumentedError) {
  const auto f = [](float x) { return fast_exp(x); };
  const auto ref = [](double x) { return std::exp(x); };
  EXPECT_LT(sweep(f, ref, -87.3f, -1e-30f).rel, 8.6e-8);
  EXPECT_LT(sweep(f, ref, 1e-30f, 88.3f).rel, 8.6e-8);
  EXPECT_EQ(fast_exp(0.0f), 1.0f);
  EXPECT_EQ(fast_exp(-0.0f), 1.0f);
}

TEST(FastMath, ExpSpecialValues) {
  EXPECT_EQ(fast_exp(-kInf), 0.0f);
  EXPECT_EQ(fast_exp(kInf), kInf);
  EXPECT_TRUE(std::isnan(fast_exp(kNaN)));
  EXPECT_TRUE(std::isnan(fast_exp(-kNaN)));
  // Underflow to exactly 0 below -87.68, overflow to +inf above 88.376, however far out.
  for (float x : {-87.7f, -88.0f, -100.0f, -3e6f, -1.3e7f, -1e20f, -3e38f})
    EXPECT_EQ(fast_exp(x), 0.0f) << x;
  for (float x : {88.4f, 88.8f, 100.0f, 1e7f, 3e38f}) EXPECT_EQ(fast_exp(x), kInf) << x;
  EXPECT_GT(fast_exp(88.3f), 2.2e38f);
  EXPECT_EQ(fast_exp(0.5), std::exp(0.5));  // double is libm
}

TEST(FastMath, SigmoidWithinItsDocumentedError) {
  const auto f = [](float x) { return fast_sigmoid(x); };
  const auto ref = [](double x) { return 1 / (1 + std::exp(-x)); };
  for (const MaxError& e : {sweep(f, ref, -87.0f, -1e-30f), sweep(f, ref, 1e-30f, 87.0f)}) {
    EXPECT_LT(e.abs, 9.0e-8);
    EXPECT_LT(e.rel, 1.5e-7);
  }
}

TEST(FastMath, SigmoidSpecialValues) {
  EXPECT_EQ(fast_sigmoid(0.0f), 0.5f);
  EXPECT_EQ(fast_sigmoid(17.0f), 1.0f);
  EXPECT_EQ(fast_sigmoid(200.0f), 1.0f);
  EXPECT_EQ(fast_sigmoid(1e30f), 1.0f);
  EXPECT_EQ(fast_sigmoid(kInf), 1.0f);
  EXPECT_EQ(fast_sigmoid(-89.0f), 0.0f);
  EXPECT_EQ(fast_sigmoid(-1e30f), 0.0f);
  EXPECT_EQ(fast_sigmoid(-kInf), 0.0f);
  EXPECT_TRUE(std::isnan(fast_sigmoid(kNaN)));
  EXPECT_EQ(fast_sigmoid(-800.0), 0.0);  // double: no overflow on either side
  EXPECT_EQ(fast_sigmoid(0.3), 1 / (1 + std::exp(-0.3)));
}

TEST(FastMath, TanhWithinItsDocumentedError) {
  const auto f = [](float x) { return fast_tanh(x); };
  const auto ref = [](double x) { return std::tanh(x); };
  // fast_math.h documents two sets of bounds: with fused multiply-add, where the compiler
  // contracts a * b + c (a target with FMA, which every build's x86-64-v3 minimum has, and
  // -O2 or above), and without (-O0 and the sanitizers' -O1). The copy tested here is this
  // file's, so its own flags decide: the tests compile at -O0 (tests/CMakeLists.txt), where
  // each Horner step rounds twice, and get the wider bounds; the tight ones apply should
  // this file ever be optimised.
#if defined(__FMA__) && defined(__OPTIMIZE__)
  constexpr double kBound = 3.0e-7, kBoundNearZero = 1.7e-7;
#else
  constexpr double kBound = 4.2e-7, kBoundNearZero = 1.8e-7;
#endif
  for (const MaxError& e : {sweep(f, ref, -10.0f, -1e-30f), sweep(f, ref, 1e-30f, 10.0f)}) {
    EXPECT_LT(e.abs, kBound);
    EXPECT_LT(e.rel, kBound);
  }
  EXPECT_LT(sweep(f, ref, -1.0f, -1e-30f).abs, kBoundNearZero);
  EXPECT_LT(sweep(f, ref, 1e-30f, 1.0f).abs, kBoundNearZero);
  // Odd, including small arguments where the relative error matters.
  for (float x : {1e-30f, 1e-5f, 3e-3f, 0.3f, 0.625f, 1.0f, 2.5f, 7.9f}) {
    EXPECT_EQ(fast_tanh(-x), -fast_tanh(x)) << x;
    EXPECT_FLOAT_EQ(fast_tanh(x), static_cast<float>(std::tanh(double(x)))) << x;
  }
}

TEST(FastMath, TanhSpecialValues) {
  EXPECT_EQ(fast_tanh(0.0f), 0.0f);
  EXPECT_TRUE(std::signbit(fast_tanh(-0.0f)));
  for (float x : {7.9054f, 8.0f, 9.0f, 30.0f, 1e30f, kInf}) {
    EXPECT_EQ(fast_tanh(x), 1.0f) << x;
    EXPECT_EQ(fast_tanh(-x), -1.0f) << x;
  }
  EXPECT_TRUE(std::isnan(fast_tanh(kNaN)));
  EXPECT_TRUE(std::isnan(fast_tanh(-kNaN)));
  EXPECT_EQ(fast_tanh(0.3), std::tanh(0.3));  // double is libm
}

}  // namespace
}  // namespace heed::kernels
