#include "heed/autograd/softmax_op.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "heed/autograd/index.h"
#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

TEST(Softmax, ForwardMatchesHandComputation) {
  Var x(Tensor::from({2, 3}, {1, 2, 3, 0, 0, 0}, DType::f64));
  const double z = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  Tensor expected = Tensor::from(
      {2, 3}, {std::exp(1.0) / z, std::exp(2.0) / z, std::exp(3.0) / z, 1. / 3, 1. / 3, 1. / 3},
      DType::f64);
  EXPECT_TRUE(all_close(softmax(x).value(), expected, 1e-12));
  Tensor log_expected = Tensor::from({2, 3},
                                     {1 - std::log(z), 2 - std::log(z), 3 - std::log(z),
                                      -std::log(3.0), -std::log(3.0), -std::log(3.0)},
                                     DType::f64);
  EXPECT_TRUE(all_close(log_softmax(x).value(), log_expected, 1e-12));
}

TEST(Softmax, MaskedForward) {
  Var x(Tensor::from({2, 3}, {1, 2, 3, 5, 6, 7}, DType::f64));
  std::vector<std::uint8_t> mask = {1, 1, 0, 0, 0, 0};
  std::vector<double> y = softmax(x, mask).value().to_vector();
  const double z = std::exp(1.0) + std::exp(2.0);
  EXPECT_NEAR(y[0], std::exp(1.0) / z, 1e-12);
  EXPECT_NEAR(y[1], std::exp(2.0) / z, 1e-12);
  EXPECT_EQ(y[2], 0.0);
  for (int i = 3; i < 6; ++i) EXPECT_EQ(y[i], 0.0);  // fully masked row: zeros, not NaN
  std::vector<double> ly = log_softmax(x, mask).value().to_vector();
  EXPECT_NEAR(ly[0], 1 - std::log(z), 1e-12);
  EXPECT_EQ(ly[2], -std::numeric_limits<double>::infinity());
  EXPECT_EQ(ly[4], -std::numeric_limits<double>::infinity());
}

TEST(Softmax, TensorMaskBroadcastsOverLeadingDimensions) {
  Var x = random_var({3, 2, 4}, 1);
  Tensor mask = Tensor::from({2, 4}, {1, 1, 1, 0, 1, 0, 0, 0});
  Tensor y = softmax(x, mask).value();
  for (int t = 0; t < 3; ++t) {
    EXPECT_EQ(y.at({t, 0, 3}), 0.0);
    EXPECT_NEAR(y.at({t, 1, 0}), 1.0, 1e-15);
    EXPECT_NEAR(y.at({t, 0, 0}) + y.at({t, 0, 1}) + y.at({t, 0, 2}), 1.0, 1e-12);
  }
  EXPECT_THROW(softmax(x, Tensor::from({4, 2}, std::vector<double>(8, 1.0))), Error);
  EXPECT_THROW(softmax(x, std::vector<std::uint8_t>(5, 1)), Error);
}

TEST(Softmax, StableForLargeLogits) {
  Var x(Tensor::from({1, 3}, {1000, 1001, 1002}));
  std::vector<double> y = softmax(x).value().to_vector();
  Var ref(Tensor::from({1, 3}, {0, 1, 2}));
  EXPECT_TRUE(all_close(softmax(x).value(), softmax(ref).value(), 1e-6));
  for (double v : y) EXPECT_TRUE(std::isfinite(v));
}

TEST(Softmax, GradientCheck) {
  Var x = random_var({2, 3, 5}, 2, -2, 2);
  EXPECT_TRUE(gradcheck([&] { return softmax(x); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return log_softmax(x); }, {x}));
}

TEST(Softmax, MaskedGradientCheck) {
  Var x = random_var({3, 4}, 3, -2, 2);
  std::vector<std::uint8_t> mask = {1, 1, 1, 0, 1, 1, 0, 0, 0, 0, 0, 0};
  EXPECT_TRUE(gradcheck([&] { return softmax(x, mask); }, {x}));
  // Masked log-probabilities are -inf; check the finite ones (the first two columns of the
  // first two rows); masked inputs must get exactly zero gradient.
  Var y = random_var({2, 4}, 4, -2, 2);
  std::vector<std::uint8_t> m2 = {1, 1, 1, 0, 1, 1, 0, 0};
  EXPECT_TRUE(gradcheck([&] { return slice(log_softmax(y, m2), 1, 0, 2); }, {y}));
  EXPECT_EQ(y.grad().at({0, 3}), 0.0);
  EXPECT_EQ(y.grad().at({1, 2}), 0.0);
}

TEST(Softmax, FullyMaskedRowHasZeroGradient) {
  Var x = random_var({2, 3}, 5);
  Tape::current().clear();
  Var y = softmax(x, std::vector<std::uint8_t>{1, 0, 1, 0, 0, 0});
  Tape::current().backward(y, Tensor::full({2, 3}, 1.0, DType::f64));
  for (double g : x.grad().to_vector()) EXPECT_TRUE(std::isfinite(g));
  EXPECT_EQ(x.grad().at({1, 0}), 0.0);
}

}  // namespace
}  // namespace heed
