#include "heed/nn/dropout.h"

#include <gtest/gtest.h>

#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::random_var;

TEST(DropoutModule, FollowsTrainingFlag) {
  Dropout drop(0.5);
  EXPECT_EQ(drop.named_parameters().size(), 0u);
  Var x = random_var({20, 10}, 1, 1, 2);  // no zeros of its own
  Rng rng(5);
  EXPECT_TRUE(drop.training());
  int zeros = 0;
  for (double v : drop.forward(x, rng).value().to_vector()) zeros += v == 0.0;
  EXPECT_GT(zeros, 50);
  EXPECT_LT(zeros, 150);
  drop.eval();
  EXPECT_TRUE(drop.forward(x, rng).same_node(x));
}

TEST(DropoutModule, RejectsBadProbability) {
  EXPECT_THROW(Dropout(-0.1), Error);
  EXPECT_THROW(Dropout(1.1), Error);
}

}  // namespace
}  // namespace heed
