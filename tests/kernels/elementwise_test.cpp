#include "heed/kernels/elementwise.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace heed::kernels {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// Max relative error of f against the double-precision reference over [lo, hi].
template <typename F, typename R>
double max_rel_error(F f, R ref, double lo, double hi) {
  double worst = 0;
  for (int i = 0; i <= 200000; ++i) {
    const float x = static_cast<float>(lo + (hi - lo) * i / 200000.0);
    const double r = ref(static_cast<double>(x));
    if (r == 0 || std::abs(r) < 1e-37) continue;
    worst = std::max(worst, std::abs(static_cast<double>(f(x)) - r) / std::abs(r));
  }
  return worst;
}

TEST(ElementwiseKernel, ExpApproxIsAccurate) {
  EXPECT_LT(max_rel_error([](float x) { return exp_approx(x); },
                          [](double x) { return std::exp(x); }, -87, 88),
            2e-7);
  EXPECT_EQ(exp_approx(0.f), 1.f);
  EXPECT_EQ(exp_approx(-kInf), 0.f);
  EXPECT_EQ(exp_approx(-100.f), 0.f);
  EXPECT_EQ(exp_approx(100.f), kInf);
  EXPECT_TRUE(std::isnan(exp_approx(std::numeric_limits<float>::quiet_NaN())));
}

TEST(ElementwiseKernel, TanhAndSigmoidAreAccurate) {
  EXPECT_LT(max_rel_error([](float x) { return tanh_approx(x); },
                          [](double x) { return std::tanh(x); }, -20, 20),
            5e-7);
  EXPECT_LT(max_rel_error([](float x) { return sigmoid(x); },
                          [](double x) { return 1 / (1 + std::exp(-x)); }, -80, 80),
            5e-7);
  EXPECT_EQ(tanh_approx(0.f), 0.f);
  EXPECT_EQ(tanh_approx(50.f), 1.f);
  EXPECT_EQ(tanh_approx(-50.f), -1.f);
  EXPECT_EQ(sigmoid(-200.f), 0.f);
  EXPECT_EQ(sigmoid(200.f), 1.f);
  EXPECT_EQ(sigmoid(0.f), 0.5f);
}

TEST(ElementwiseKernel, BackwardsAccumulate) {
  std::vector<float> y = {0.5f}, dy = {2.f}, dx = {1.f};
  tanh_backward<float>(y.data(), dy.data(), dx.data(), 1);
  EXPECT_FLOAT_EQ(dx[0], 1.f + 2.f * 0.75f);
  sigmoid_backward<float>(y.data(), dy.data(), dx.data(), 1);
  EXPECT_FLOAT_EQ(dx[0], 2.5f + 2.f * 0.25f);
  std::vector<double> r = {-1.0, 0.0, 2.0}, rdy = {1, 1, 1}, rdx = {0, 0, 0};
  relu_backward<double>(r.data(), rdy.data(), rdx.data(), 3);
  EXPECT_EQ(rdx, (std::vector<double>{0, 0, 1}));
}

TEST(ElementwiseKernel, AddRowsBroadcastsTheVector) {
  std::vector<double> x = {1, 2, 3, 4}, v = {10, 20}, y(4);
  add_rows<double>(x.data(), v.data(), y.data(), 2, 2);
  EXPECT_EQ(y, (std::vector<double>{11, 22, 13, 24}));
}

}  // namespace
}  // namespace heed::kernels
