// The Gaussian location policy (autograd/gaussian_op.h): the log-density by hand, the
// gradient w.r.t. the mean in double, the draws' statistics and seed.
#include "heed/autograd/gaussian_op.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::gradcheck;
using testing::random_tensor;
using testing::random_var;

TEST(GaussianPolicy, LogProbByHand) {
  Var mean(Tensor::from({2, 2}, {0, 0, 0.5, -0.5}, DType::f64), true);
  Tensor x = Tensor::from({2, 2}, {0, 0, 0.7, -0.1}, DType::f64);
  const double sigma = 0.2;
  const std::vector<double> lp = gaussian_log_prob(mean, x, sigma).value().to_vector();
  const double norm = 2 * (std::log(sigma) + 0.5 * std::log(2 * std::numbers::pi));
  EXPECT_NEAR(lp[0], -norm, 1e-12);
  EXPECT_NEAR(lp[1], -(0.04 + 0.16) / (2 * 0.04) - norm, 1e-12);
}

TEST(GaussianPolicy, GradientOfTheMean) {
  Var mean = random_var({3, 2}, 1);
  Tensor x = random_tensor({3, 2}, 2);
  EXPECT_TRUE(gradcheck([&] { return gaussian_log_prob(mean, x, 0.3); }, {mean}));
}

TEST(GaussianPolicy, SamplesHaveTheMeanAndSigmaAndFollowTheSeed) {
  Var mean(Tensor::from({1, 2}, {0.25, -0.5}, DType::f64));
  Rng rng(7);
  const int n = 20000;
  double s[2] = {0, 0}, s2[2] = {0, 0};
  for (int i = 0; i < n; ++i) {
    const std::vector<double> v = gaussian_sample(mean, 0.1, rng).to_vector();
    for (int d = 0; d < 2; ++d) {
      s[d] += v[static_cast<std::size_t>(d)];
      s2[d] += v[static_cast<std::size_t>(d)] * v[static_cast<std::size_t>(d)];
    }
  }
  for (int d = 0; d < 2; ++d) {
    const double m = s[d] / n, sd = std::sqrt(s2[d] / n - m * m);
    EXPECT_NEAR(m, mean.value().at({0, d}), 0.003);  // 4 standard errors
    EXPECT_NEAR(sd, 0.1, 0.003);
  }
  Rng a(3), b(3);
  EXPECT_EQ(gaussian_sample(mean, 0.1, a).to_vector(), gaussian_sample(mean, 0.1, b).to_vector());
  EXPECT_THROW(gaussian_sample(mean, 0.0, a), Error);
}

}  // namespace
}  // namespace heed
