#include "heed/autograd/reduce_op.h"

#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

TEST(Reduce, ForwardMatchesHandComputation) {
  Var x(Tensor::from({2, 3}, {1, 2, 3, 4, 5, 6}));
  Tensor s = sum(x).value();
  EXPECT_EQ(s.ndim(), 0);
  EXPECT_FLOAT_EQ(s.item(), 21);
  EXPECT_FLOAT_EQ(mean(x).value().item(), 3.5);
  EXPECT_TRUE(all_close(sum(x, 0).value(), Tensor::from({3}, {5, 7, 9})));
  EXPECT_TRUE(all_close(sum(x, -1).value(), Tensor::from({2}, {6, 15})));
  EXPECT_TRUE(all_close(sum(x, 1, true).value(), Tensor::from({2, 1}, {6, 15})));
  EXPECT_TRUE(all_close(mean(x, 0).value(), Tensor::from({3}, {2.5, 3.5, 4.5})));
}

TEST(Reduce, MiddleDimension) {
  Var x(Tensor::from({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_TRUE(all_close(sum(x, 1).value(), Tensor::from({2, 2}, {4, 6, 12, 14})));
}

TEST(Reduce, GradientCheck) {
  Var x = random_var({2, 3, 4}, 1);
  EXPECT_TRUE(gradcheck([&] { return sum(x); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return mean(x); }, {x}));
  for (int d = 0; d < 3; ++d) {
    EXPECT_TRUE(gradcheck([&] { return sum(x, d); }, {x})) << d;
    EXPECT_TRUE(gradcheck([&] { return mean(x, d, true); }, {x})) << d;
  }
}

TEST(Reduce, BackwardFromScalar) {
  Var x = random_var({3, 2}, 2);
  Tape::current().clear();
  Var loss = mean(x);
  Tape::current().backward(loss);
  for (double g : x.grad().to_vector()) EXPECT_DOUBLE_EQ(g, 1.0 / 6);
}

TEST(Reduce, RejectsBadDimension) {
  Var x = random_var({3, 2}, 3);
  EXPECT_THROW(sum(x, 2), Error);
  EXPECT_THROW(sum(x, -3), Error);
}

}  // namespace
}  // namespace heed
