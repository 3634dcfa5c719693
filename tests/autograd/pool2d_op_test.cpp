// max_pool2d and avg_pool2d (autograd/pool2d_op.h): hand-computed windows, gradients in double.
#include "heed/autograd/pool2d_op.h"

#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::gradcheck;
using testing::random_var;

// One 4x5 plane holding 0..19 row by row.
Var ramp() {
  std::vector<double> v(20);
  for (int i = 0; i < 20; ++i) v[static_cast<std::size_t>(i)] = i;
  return Var(Tensor::from({1, 1, 4, 5}, v, DType::f64), true);
}

TEST(Pool2d, HandComputedWindows) {
  // kernel 2, stride 2: windows at columns 0-1 and 2-3 (column 4 is left over).
  EXPECT_EQ(max_pool2d(ramp(), 2, 2).value().to_vector(), (std::vector<double>{6, 8, 16, 18}));
  EXPECT_EQ(avg_pool2d(ramp(), 2, 2).value().to_vector(),
            (std::vector<double>{3, 5, 13, 15}));
  // kernel 3, stride 1: overlapping windows, 2 x 3 of them.
  EXPECT_EQ(max_pool2d(ramp(), 3, 1).value().to_vector(),
            (std::vector<double>{12, 13, 14, 17, 18, 19}));
  EXPECT_EQ(avg_pool2d(ramp(), 3, 1).value().shape(), (Shape{1, 1, 2, 3}));
  EXPECT_DOUBLE_EQ(avg_pool2d(ramp(), 3, 1).value().at({0, 0, 1, 2}), 13.0);
}

TEST(Pool2d, MaxGradientGoesToTheFirstMaximum) {
  Var x(Tensor::from({1, 1, 2, 2}, {5, 5, 1, 5}, DType::f64), true);
  Var y = max_pool2d(x, 2, 2);
  Tape::current().backward(y, Tensor::full({1, 1, 1, 1}, 1.0, DType::f64));
  EXPECT_EQ(x.grad().to_vector(), (std::vector<double>{1, 0, 0, 0}));
}

TEST(Pool2d, GradientCheck) {
  Var x = random_var({2, 3, 6, 7}, 1);
  EXPECT_TRUE(gradcheck([&] { return max_pool2d(x, 2, 2); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return max_pool2d(x, 3, 2); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return avg_pool2d(x, 2, 2); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return avg_pool2d(x, 3, 1); }, {x}));
}

TEST(Pool2d, RefusesBadSizes) {
  Var x = random_var({1, 1, 4, 4}, 2);
  EXPECT_THROW(max_pool2d(x, 5, 1), Error);
  EXPECT_THROW(avg_pool2d(x, 2, 0), Error);
  EXPECT_THROW(avg_pool2d(random_var({4, 4}, 3), 2, 2), Error);
}

}  // namespace
}  // namespace heed
