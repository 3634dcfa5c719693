#include "heed/autograd/lstm.h"

#include <gtest/gtest.h>

#include "autograd/rnn_reference.h"
#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::gradcheck;
using testing::join;
using testing::random_var;

TEST(LstmCell, ForwardMatchesNaiveLoop) {
  const std::int64_t B = 3, in = 4, H = 5;
  Var x = random_var({B, in}, 1, -2, 2), h = random_var({B, H}, 2), c = random_var({B, H}, 3);
  Var w_ih = random_var({4 * H, in}, 4), w_hh = random_var({4 * H, H}, 5);
  Var b_ih = random_var({4 * H}, 6), b_hh = random_var({4 * H}, 7);
  LstmState s = lstm_cell(x, {h, c}, w_ih, w_hh, b_ih, b_hh);
  testing::RefWeights w = testing::ref_weights(w_ih, w_hh, b_ih, b_hh);
  std::vector<double> xs = x.value().to_vector(), hs = h.value().to_vector(),
                      cs = c.value().to_vector();
  for (std::int64_t b = 0; b < B; ++b) {
    std::vector<double> hb(hs.begin() + b * H, hs.begin() + (b + 1) * H),
        cb(cs.begin() + b * H, cs.begin() + (b + 1) * H);
    testing::ref_step(true, w, in, H, xs.data() + b * in, hb, cb);
    for (std::int64_t j = 0; j < H; ++j) {
      EXPECT_NEAR(s.h.value().at({b, j}), hb[j], 1e-12);
      EXPECT_NEAR(s.c.value().at({b, j}), cb[j], 1e-12);
    }
  }
}

TEST(LstmCell, HandComputedValue) {
  // H = 1, in = 1, x = 1, h = 0, c = 1, w_ih = [1, 2, 3, 4], no recurrent contribution.
  Var x(Tensor::from({1, 1}, {1.0}, DType::f64));
  Var h(Tensor::zeros({1, 1}, DType::f64)), c(Tensor::from({1, 1}, {1.0}, DType::f64));
  Var w_ih(Tensor::from({4, 1}, {1, 2, 3, 4}, DType::f64));
  Var w_hh(Tensor::from({4, 1}, {9, 9, 9, 9}, DType::f64));
  auto sg = [](double v) { return 1 / (1 + std::exp(-v)); };
  const double c1 = sg(2) * 1 + sg(1) * std::tanh(3.0), h1 = sg(4) * std::tanh(c1);
  LstmState s = lstm_cell(x, {h, c}, w_ih, w_hh, Var(), Var());
  EXPECT_NEAR(s.c.value().item(), c1, 1e-14);
  EXPECT_NEAR(s.h.value().item(), h1, 1e-14);
}

TEST(LstmCell, GradientCheckBothOutputs) {
  const std::int64_t B = 3, in = 4, H = 4;
  Var x = random_var({B, in}, 1, -2, 2), h = random_var({B, H}, 2), c = random_var({B, H}, 3);
  Var w_ih = random_var({4 * H, in}, 4), w_hh = random_var({4 * H, H}, 5);
  Var b_ih = random_var({4 * H}, 6), b_hh = random_var({4 * H}, 7);
  EXPECT_TRUE(gradcheck(
      [&] {
        LstmState s = lstm_cell(x, {h, c}, w_ih, w_hh, b_ih, b_hh);
        return join({s.h, s.c});
      },
      {x, h, c, w_ih, w_hh, b_ih, b_hh}));
}

TEST(LstmStep, GradientCheckWithMask) {
  const std::int64_t B = 4, H = 3;
  Var gi = random_var({B, 4 * H}, 8, -2, 2), h = random_var({B, H}, 9),
      c = random_var({B, H}, 10);
  Var w_hh = random_var({4 * H, H}, 11), b_hh = random_var({4 * H}, 12);
  const std::vector<std::uint8_t> mask{0, 1, 1, 0};
  EXPECT_TRUE(gradcheck(
      [&] {
        LstmState s = lstm_step(gi, {h, c}, w_hh, b_hh, mask);
        return join({s.h, s.c});
      },
      {gi, h, c, w_hh, b_hh}));
  LstmState s = lstm_step(gi, {h, c}, w_hh, b_hh, mask);
  for (std::int64_t j = 0; j < H; ++j) {
    EXPECT_EQ(s.h.value().at({0, j}), h.value().at({0, j}));
    EXPECT_EQ(s.c.value().at({3, j}), c.value().at({3, j}));
  }
}

TEST(LstmStep, GradientOfOneOutputOnly) {
  // Only h' reaches the loss: c' contributes zero, and backward must still run.
  const std::int64_t B = 2, H = 3;
  Var gi = random_var({B, 4 * H}, 13), h = random_var({B, H}, 14), c = random_var({B, H}, 15);
  Var w_hh = random_var({4 * H, H}, 16);
  EXPECT_TRUE(gradcheck([&] { return lstm_step(gi, {h, c}, w_hh, Var()).h; }, {gi, h, c, w_hh}));
  EXPECT_TRUE(gradcheck([&] { return lstm_step(gi, {h, c}, w_hh, Var()).c; }, {gi, h, c, w_hh}));
}

TEST(LstmStep, TwoStepsGradientCheck) {
  const std::int64_t B = 2, H = 3;
  Var g1 = random_var({B, 4 * H}, 17), g2 = random_var({B, 4 * H}, 18);
  Var h = random_var({B, H}, 19), c = random_var({B, H}, 20);
  Var w_hh = random_var({4 * H, H}, 21), b_hh = random_var({4 * H}, 22);
  const std::vector<std::uint8_t> mask{1, 0};
  EXPECT_TRUE(gradcheck(
      [&] {
        LstmState s = lstm_step(g1, {h, c}, w_hh, b_hh);
        s = lstm_step(g2, s, w_hh, b_hh, mask);
        return join({s.h, s.c});
      },
      {g1, g2, h, c, w_hh, b_hh}));
}

}  // namespace
}  // namespace heed
