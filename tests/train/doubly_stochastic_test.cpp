// The doubly stochastic attention penalty (train/doubly_stochastic.h): its value on a small
// case worked by hand, the masks of short targets and short sources, and its gradient.
#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "heed/train/doubly_stochastic.h"
#include "support/gradcheck.h"

namespace heed {
namespace {

Var weights(const std::vector<double>& v) {
  return Var(Tensor::from({2, 3}, v, DType::f64), /*requires_grad=*/true);
}

TEST(DoublyStochastic, ValueOnASmallCase) {
  // Row 0: 2 target steps over 3 positions; row 1: 1 step over its 2 real positions.
  const std::vector<Var> alphas = {weights({0.5, 0.3, 0.2, 0.6, 0.4, 0.0}),
                                   weights({0.1, 0.1, 0.8, 0.9, 0.1, 0.0})};
  const std::vector<std::int64_t> n = {2, 1}, m = {3, 2};
  // Row 0: sums over t are 0.6, 0.4, 1.0 -> 0.16 + 0.36 + 0; row 1 (only t = 0): 0.6, 0.4
  // -> 0.16 + 0.36 (its third position is padding). Total 1.04, times lambda / N = 2 / 3.
  const Var p = doubly_stochastic_penalty(alphas, n, m, 2.0, 3.0);
  EXPECT_NEAR(p.value().item(), 1.04 * 2.0 / 3.0, 1e-12);
  // Uniform coverage: every position summed to 1 gives 0.
  const std::vector<Var> covering = {weights({1, 0, 0, 1, 0, 0}), weights({0, 1, 0, 0, 1, 0}),
                                     weights({0, 0, 1, 0, 0, 0})};
  EXPECT_NEAR(doubly_stochastic_penalty(covering, std::vector<std::int64_t>{3, 2}, m, 1.0, 5.0)
                  .value()
                  .item(),
              0.0, 1e-12);
}

TEST(DoublyStochastic, Gradient) {
  const std::vector<Var> alphas = {weights({0.5, 0.3, 0.2, 0.6, 0.4, 0.0}),
                                   weights({0.1, 0.1, 0.8, 0.9, 0.1, 0.0})};
  const std::vector<std::int64_t> n = {2, 1}, m = {3, 2};
  EXPECT_TRUE(testing::gradcheck(
      [&] { return doubly_stochastic_penalty(alphas, n, m, 0.7, 4.0); }, alphas));
  // d/d alpha_bti = -2 lambda / N (1 - sum_t alpha_bti) where step t counts, else 0.
  for (const Var& a : alphas) a.clear_grad();
  Var p = doubly_stochastic_penalty(alphas, n, m, 1.0, 1.0);
  Tape::current().backward(p);
  EXPECT_NEAR(alphas[0].grad().at({0, 0}), -2.0 * 0.4, 1e-12);
  EXPECT_NEAR(alphas[1].grad().at({1, 0}), 0.0, 1e-12);  // row 1 has one step only
  EXPECT_NEAR(alphas[0].grad().at({1, 2}), 0.0, 1e-12);  // row 1's padding position
}

TEST(DoublyStochastic, RefusesMismatchedLengths) {
  const std::vector<Var> alphas = {weights({0.5, 0.3, 0.2, 0.6, 0.4, 0.0})};
  EXPECT_THROW(doubly_stochastic_penalty(alphas, std::vector<std::int64_t>{1},
                                         std::vector<std::int64_t>{3, 2}, 1.0, 1.0),
               Error);
  EXPECT_THROW(doubly_stochastic_penalty({}, std::vector<std::int64_t>{}, std::vector<std::int64_t>{},
                                         1.0, 1.0),
               Error);
}

}  // namespace
}  // namespace heed
