// The coverage loss (train/coverage_loss.h): its value on a small case worked by hand, the mask
// of short targets, its gradient, and the tape-free sum the dev set's report uses.
#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "heed/train/coverage_loss.h"
#include "support/gradcheck.h"

namespace heed {
namespace {

Var weights(const std::vector<double>& v) {
  return Var(Tensor::from({2, 3}, v, DType::f64), /*requires_grad=*/true);
}

// Row 0: three target steps; row 1: two (its third step is padding and does not count).
const std::vector<std::int64_t> kTargets = {3, 2};
std::vector<Var> three_steps() {
  return {weights({0.5, 0.3, 0.2, 0.6, 0.4, 0.0}), weights({0.1, 0.1, 0.8, 0.9, 0.1, 0.0}),
          weights({0.7, 0.2, 0.1, 0.3, 0.3, 0.4})};
}

TEST(CoverageLoss, ValueOnASmallCase) {
  // Row 0: t = 1: min(.1,.5) + min(.1,.3) + min(.8,.2) = .4; t = 2 (c = .6,.4,1.0):
  // min(.7,.6) + min(.2,.4) + min(.1,1) = .9. Row 1: t = 1: min(.9,.6) + min(.1,.4) + 0 = .7;
  // t = 2 does not count. Total 2.0, times lambda / N = 1.5 / 4.
  const Var loss = coverage_loss(three_steps(), kTargets, 1.5, 4.0);
  EXPECT_NEAR(loss.value().item(), 2.0 * 1.5 / 4.0, 1e-12);
  // Attention that never returns to a position has no coverage loss.
  const std::vector<Var> moving = {weights({1, 0, 0, 1, 0, 0}), weights({0, 1, 0, 0, 1, 0}),
                                   weights({0, 0, 1, 0, 0, 1})};
  EXPECT_EQ(coverage_loss(moving, kTargets, 1.0, 1.0).value().item(), 0.0);
  // One step: nothing covered yet.
  EXPECT_EQ(coverage_loss({weights({0.5, 0.3, 0.2, 0.6, 0.4, 0.0})}, kTargets, 1.0, 1.0)
                .value()
                .item(),
            0.0);
}

TEST(CoverageLoss, Gradient) {
  const std::vector<Var> alphas = three_steps();  // no ties between alpha and the coverage
  EXPECT_TRUE(testing::gradcheck([&] { return coverage_loss(alphas, kTargets, 0.7, 4.0); },
                                 alphas));
  for (const Var& a : alphas) a.clear_grad();
  Var loss = coverage_loss(alphas, kTargets, 1.0, 1.0);
  Tape::current().backward(loss);
  // Row 0, position 0: step 1 takes min = alpha (0.1 < 0.5), step 2 min = c (0.6 < 0.7): alpha_0
  // gets 1 (through c at step 2), alpha_1 gets 1 + 1 (its own min and through c at step 2).
  EXPECT_NEAR(alphas[0].grad().at({0, 0}), 1.0, 1e-12);
  EXPECT_NEAR(alphas[1].grad().at({0, 0}), 1.0 + 1.0, 1e-12);
  EXPECT_NEAR(alphas[2].grad().at({0, 0}), 0.0, 1e-12);
  EXPECT_NEAR(alphas[2].grad().at({1, 0}), 0.0, 1e-12);  // row 1's step 2 does not count
}

TEST(CoverageLoss, SumOfATensorMatchesTheTapeLoss) {
  const std::vector<Var> alphas = three_steps();
  Tensor all = Tensor::empty({2, 3, 3}, DType::f64);
  for (std::int64_t t = 0; t < 3; ++t)
    for (std::int64_t b = 0; b < 2; ++b)
      for (std::int64_t j = 0; j < 3; ++j)
        all.set({b, t, j}, alphas[static_cast<std::size_t>(t)].value().at({b, j}));
  EXPECT_NEAR(coverage_loss_sum(all, kTargets), 2.0, 1e-12);
  EXPECT_NEAR(coverage_loss_sum(all, kTargets),
              coverage_loss(alphas, kTargets, 1.0, 1.0).value().item(), 1e-12);
}

TEST(CoverageLoss, RefusesMismatchedLengths) {
  EXPECT_THROW(coverage_loss(three_steps(), std::vector<std::int64_t>{1}, 1.0, 1.0), Error);
  EXPECT_THROW(coverage_loss({}, std::vector<std::int64_t>{}, 1.0, 1.0), Error);
  EXPECT_THROW(coverage_loss(three_steps(), kTargets, 1.0, 0.0), Error);
}

}  // namespace
}  // namespace heed
