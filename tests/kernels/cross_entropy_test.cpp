#include "heed/kernels/cross_entropy.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace heed::kernels {
namespace {

TEST(CrossEntropyKernel, ForwardRowLossesAndLogSumExp) {
  std::vector<double> x = {1, 2, 3, 0, 0, 0}, lse(2), loss(2);
  std::vector<std::int32_t> t = {0, -1};
  cross_entropy_forward<double>(x.data(), 2, 3, t.data(), -1, 0.0, lse.data(), loss.data());
  const double l0 = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  EXPECT_NEAR(lse[0], l0, 1e-12);
  EXPECT_NEAR(lse[1], std::log(3.0), 1e-12);
  EXPECT_NEAR(loss[0], l0 - 1, 1e-12);
  EXPECT_EQ(loss[1], 0.0);  // ignored
}

TEST(CrossEntropyKernel, BackwardIsSoftmaxMinusSmoothedTarget) {
  std::vector<double> x = {0, 0, 0, 0}, lse(1), loss(1), d(4, 1.0);
  std::vector<std::int32_t> t = {2};
  cross_entropy_forward<double>(x.data(), 1, 4, t.data(), -100, 0.2, lse.data(), loss.data());
  cross_entropy_backward<double>(x.data(), lse.data(), 1, 4, t.data(), -100, 0.2, 0.5, d.data());
  // softmax 0.25; target distribution 0.05 everywhere plus 0.8 at class 2; scale 0.5.
  EXPECT_NEAR(d[0], 1 + 0.5 * (0.25 - 0.05), 1e-12);
  EXPECT_NEAR(d[2], 1 + 0.5 * (0.25 - 0.85), 1e-12);
  EXPECT_NEAR(loss[0], std::log(4.0), 1e-12);  // uniform: every term is log 4
}

TEST(CrossEntropyKernel, StableForLargeLogits) {
  std::vector<float> x = {1000.f, 0.f}, lse(1);
  std::vector<double> loss(1);
  std::vector<std::int32_t> t = {1};
  cross_entropy_forward<float>(x.data(), 1, 2, t.data(), -100, 0.0, lse.data(), loss.data());
  EXPECT_NEAR(loss[0], 1000.0, 1e-3);
  EXPECT_TRUE(std::isfinite(lse[0]));
}

}  // namespace
}  // namespace heed::kernels
