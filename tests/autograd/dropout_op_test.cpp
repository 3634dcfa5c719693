#include "heed/autograd/dropout_op.h"

#include <gtest/gtest.h>

#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

TEST(Dropout, IdentityWhenNotTrainingOrZeroP) {
  Var x = random_var({3, 4}, 1);
  Rng rng(1);
  EXPECT_TRUE(dropout(x, 0.5, rng, false).same_node(x));
  EXPECT_TRUE(dropout(x, 0.0, rng, true).same_node(x));
}

TEST(Dropout, KeptElementsAreScaled) {
  Var x(Tensor::full({1000}, 2.0, DType::f64));
  Rng rng(7);
  std::vector<double> y = dropout(x, 0.25, rng, true).value().to_vector();
  int kept = 0;
  for (double v : y) {
    EXPECT_TRUE(v == 0.0 || std::abs(v - 2.0 / 0.75) < 1e-12) << v;
    kept += v != 0.0;
  }
  EXPECT_GT(kept, 700);
  EXPECT_LT(kept, 800);
}

TEST(Dropout, RepeatsWithTheSameSeed) {
  Var x = random_var({5, 7}, 2);
  Rng a(42), b(42);
  EXPECT_TRUE(all_close(dropout(x, 0.5, a, true).value(), dropout(x, 0.5, b, true).value(), 0, 0));
}

TEST(Dropout, AllDroppedWhenPIsOne) {
  Var x = random_var({4}, 3);
  Rng rng(1);
  for (double v : dropout(x, 1.0, rng, true).value().to_vector()) EXPECT_EQ(v, 0.0);
  EXPECT_THROW(dropout(x, 1.5, rng, true), Error);
}

TEST(Dropout, GradientCheck) {
  Var x = random_var({3, 5}, 4);
  // The same mask on every call: a fresh generator with the same seed each time.
  EXPECT_TRUE(gradcheck(
      [&] {
        Rng rng(9);
        return dropout(x, 0.4, rng, true);
      },
      {x}));
}

// Large enough for the threads (kernels/parallel_chunks.h): the forward is x times the mask,
// the backward writes dy times the mask into a new gradient buffer and adds it to one that
// already holds a gradient (x read twice).
TEST(Dropout, ThreadedForwardAndBothBackwardPaths) {
  const std::int64_t n = 1 << 17;
  Var x = random_var({n}, 5);
  Rng rng(11);
  Var y = dropout(x, 0.3, rng, true);
  const Tensor dy = random_var({n}, 6).value();
  Tape::current().backward(y, dy);
  const std::vector<double> xs = x.value().to_vector(), ys = y.value().to_vector(),
                            g = dy.to_vector(), dx = x.grad().to_vector();
  for (std::int64_t i = 0; i < n; ++i) {
    const double m = ys[i] == 0 ? 0 : 1 / 0.7;
    ASSERT_NEAR(ys[i], xs[i] * m, 1e-12) << i;
    ASSERT_NEAR(dx[i], g[i] * m, 1e-12) << i;
  }
  Var x2 = random_var({n}, 7);
  Rng rng2(12);
  Var z = add(dropout(x2, 0.3, rng2, true), x2);
  Tape::current().backward(z, dy);
  const std::vector<double> zs = z.value().to_vector(), x2s = x2.value().to_vector(),
                            dx2 = x2.grad().to_vector();
  for (std::int64_t i = 0; i < n; ++i) {
    const double m = zs[i] == x2s[i] ? 0 : 1 / 0.7;
    ASSERT_NEAR(dx2[i], g[i] * (m + 1), 1e-12) << i;
  }
}

}  // namespace
}  // namespace heed
