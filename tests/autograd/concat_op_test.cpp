#include "heed/autograd/concat_op.h"

#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

TEST(Concat, ForwardMatchesHandComputation) {
  Var a(Tensor::from({2, 2}, {1, 2, 3, 4})), b(Tensor::from({2, 1}, {5, 6}));
  EXPECT_TRUE(all_close(concat({a, b}, 1).value(), Tensor::from({2, 3}, {1, 2, 5, 3, 4, 6})));
  EXPECT_TRUE(all_close(concat({a, a}, 0).value(), Tensor::from({4, 2}, {1, 2, 3, 4, 1, 2, 3, 4})));
  EXPECT_TRUE(all_close(concat({a, b}, -1).value(), Tensor::from({2, 3}, {1, 2, 5, 3, 4, 6})));
}

TEST(Concat, SplitInvertsConcat) {
  Var x(Tensor::from({2, 3}, {1, 2, 3, 4, 5, 6}));
  std::vector<Var> parts = split(x, {1, 2}, 1);
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_TRUE(all_close(parts[0].value(), Tensor::from({2, 1}, {1, 4})));
  EXPECT_TRUE(all_close(parts[1].value(), Tensor::from({2, 2}, {2, 3, 5, 6})));
  EXPECT_TRUE(all_close(concat(parts, 1).value(), x.value()));
  std::vector<Var> rows = split(x, {1, 1}, 0);
  EXPECT_TRUE(all_close(rows[1].value(), Tensor::from({1, 3}, {4, 5, 6})));
}

TEST(Concat, StackForward) {
  Var a(Tensor::from({2}, {1, 2})), b(Tensor::from({2}, {3, 4}));
  EXPECT_TRUE(all_close(stack({a, b}, 0).value(), Tensor::from({2, 2}, {1, 2, 3, 4})));
  EXPECT_TRUE(all_close(stack({a, b}, 1).value(), Tensor::from({2, 2}, {1, 3, 2, 4})));
  EXPECT_TRUE(all_close(stack({a, b}, -1).value(), Tensor::from({2, 2}, {1, 3, 2, 4})));
}

TEST(Concat, GradientCheckEveryDimension) {
  for (int d = 0; d < 3; ++d) {
    Shape sb{2, 3, 4};
    sb[d] = 2;
    Var a = random_var({2, 3, 4}, 1), b = random_var(sb, 2);
    EXPECT_TRUE(gradcheck([&] { return concat({a, b, a}, d); }, {a, b})) << d;
  }
}

TEST(Concat, SplitGradientCheck) {
  for (int d = 0; d < 3; ++d) {
    Var x = random_var({3, 4, 5}, 3);
    std::vector<std::int64_t> sizes{1, x.dim(d) - 1};
    EXPECT_TRUE(gradcheck([&] { return split(x, sizes, d)[1]; }, {x})) << d;
    EXPECT_TRUE(gradcheck([&] { return concat(split(x, sizes, d), d); }, {x})) << d;
  }
}

TEST(Concat, StackGradientCheck) {
  Var a = random_var({2, 3}, 4), b = random_var({2, 3}, 5);
  for (int d = 0; d <= 2; ++d)
    EXPECT_TRUE(gradcheck([&] { return stack({a, b, a}, d); }, {a, b})) << d;
}

TEST(Concat, RejectsBadInput) {
  Var a = random_var({2, 3}, 1), b = random_var({3, 3}, 2);
  EXPECT_THROW(concat({a, b}, 1), Error);
  EXPECT_THROW(concat({}, 0), Error);
  EXPECT_THROW(concat({a}, 2), Error);
  EXPECT_THROW(split(a, {1, 1}, 1), Error);
  EXPECT_THROW(stack({a, b}, 0), Error);
  EXPECT_THROW(stack({a}, 3), Error);
}

}  // namespace
}  // namespace heed
