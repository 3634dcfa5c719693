#include "heed/nn/linear.h"

#include <cmath>

#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::gradcheck;
using testing::random_var;

TEST(LinearModule, ParametersFollowPyTorchNamesAndInit) {
  Rng rng(1);
  Linear lin(16, 3, true, rng);
  auto params = lin.named_parameters();
  ASSERT_EQ(params.size(), 2u);
  EXPECT_EQ(params[0].first, "weight");
  EXPECT_EQ(params[1].first, "bias");
  EXPECT_EQ(lin.weight.shape(), Shape({3, 16}));
  EXPECT_EQ(lin.bias.shape(), Shape({3}));
  for (auto& [_, p] : params)
    for (double v : p.value().to_vector()) EXPECT_LE(std::abs(v), 0.25);
  Rng rng2(1);
  Linear no_bias(16, 3, false, rng2);
  EXPECT_EQ(no_bias.named_parameters().size(), 1u);
  EXPECT_FALSE(no_bias.bias.defined());
  // Same generator state, same weight: the weight is drawn first.
  EXPECT_TRUE(testing::all_close(no_bias.weight.value(), lin.weight.value(), 0, 0));
}

TEST(LinearModule, ForwardMatchesHandComputation) {
  Rng rng(2);
  Linear lin(2, 1, true, rng, DType::f64);
  lin.weight.mutable_value().copy_from(Tensor::from({1, 2}, {2, -1}, DType::f64));
  lin.bias.mutable_value().copy_from(Tensor::from({1}, {0.5}, DType::f64));
  Var x(Tensor::from({2, 2}, {1, 1, 3, 4}, DType::f64));
  std::vector<double> y = lin.forward(x).value().to_vector();
  EXPECT_DOUBLE_EQ(y[0], 1.5);
  EXPECT_DOUBLE_EQ(y[1], 2.5);
}

TEST(LinearModule, GradientCheck) {
  Rng rng(3);
  Linear lin(4, 3, true, rng, DType::f64);
  Var x = random_var({2, 5, 4}, 4);
  EXPECT_TRUE(gradcheck([&] { return lin.forward(x); }, {x, lin.weight, lin.bias}));
}

TEST(LinearModule, RejectsBadSizes) {
  Rng rng(1);
  EXPECT_THROW(Linear(0, 3, true, rng), Error);
}

}  // namespace
}  // namespace heed
