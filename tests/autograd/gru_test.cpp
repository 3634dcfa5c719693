#include "heed/autograd/gru.h"

#include <gtest/gtest.h>

#include "autograd/rnn_reference.h"
#include "heed/autograd/matmul.h"
#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::gradcheck;
using testing::random_var;

TEST(GruCell, ForwardMatchesNaiveLoop) {
  const std::int64_t B = 3, in = 4, H = 5;
  Var x = random_var({B, in}, 1, -2, 2), h = random_var({B, H}, 2);
  Var w_ih = random_var({3 * H, in}, 3), w_hh = random_var({3 * H, H}, 4);
  Var b_ih = random_var({3 * H}, 5), b_hh = random_var({3 * H}, 6);
  Tensor y = gru_cell(x, h, w_ih, w_hh, b_ih, b_hh).value();
  ASSERT_EQ(y.shape(), Shape({B, H}));
  testing::RefWeights w = testing::ref_weights(w_ih, w_hh, b_ih, b_hh);
  std::vector<double> xs = x.value().to_vector(), hs = h.value().to_vector();
  for (std::int64_t b = 0; b < B; ++b) {
    std::vector<double> hb(hs.begin() + b * H, hs.begin() + (b + 1) * H), cb;
    testing::ref_step(false, w, in, H, xs.data() + b * in, hb, cb);
    for (std::int64_t j = 0; j < H; ++j) EXPECT_NEAR(y.at({b, j}), hb[j], 1e-12);
  }
}

TEST(GruCell, HandComputedValue) {
  // H = 1, in = 1: r = σ(1·1 + 0.5·2) = σ(2), z = σ(0), n = tanh(-1 + r·(1·2 + 0.5)).
  Var x(Tensor::from({1, 1}, {1.0}, DType::f64)), h(Tensor::from({1, 1}, {2.0}, DType::f64));
  Var w_ih(Tensor::from({3, 1}, {1, 0, -1}, DType::f64));
  Var w_hh(Tensor::from({3, 1}, {0.5, 0, 1}, DType::f64));
  Var b_hh(Tensor::from({3}, {0, 0, 0.5}, DType::f64));
  const double r = 1 / (1 + std::exp(-2.0)), z = 0.5, n = std::tanh(-1 + r * 2.5);
  EXPECT_NEAR(gru_cell(x, h, w_ih, w_hh, Var(), b_hh).value().item(), (1 - z) * n + z * 2, 1e-14);
}

TEST(GruCell, GradientCheck) {
  const std::int64_t B = 3, in = 4, H = 5;
  Var x = random_var({B, in}, 1, -2, 2), h = random_var({B, H}, 2);
  Var w_ih = random_var({3 * H, in}, 3), w_hh = random_var({3 * H, H}, 4);
  Var b_ih = random_var({3 * H}, 5), b_hh = random_var({3 * H}, 6);
  EXPECT_TRUE(gradcheck([&] { return gru_cell(x, h, w_ih, w_hh, b_ih, b_hh); },
                        {x, h, w_ih, w_hh, b_ih, b_hh}));
}

TEST(GruStep, GradientCheckWithMaskAndNoBias) {
  const std::int64_t B = 4, H = 3;
  Var gi = random_var({B, 3 * H}, 7, -2, 2), h = random_var({B, H}, 8);
  Var w_hh = random_var({3 * H, H}, 9);
  const std::vector<std::uint8_t> mask{1, 0, 1, 0};
  EXPECT_TRUE(gradcheck([&] { return gru_step(gi, h, w_hh, Var(), mask); }, {gi, h, w_hh}));
  Tensor y = gru_step(gi, h, w_hh, Var(), mask).value();
  for (std::int64_t j = 0; j < H; ++j) {
    EXPECT_EQ(y.at({1, j}), h.value().at({1, j}));
    EXPECT_EQ(y.at({3, j}), h.value().at({3, j}));
  }
}

TEST(GruStep, ChainedStepsGradientCheck) {
  // A decoder-style loop: three steps with a shared projection, strided x_proj rows.
  const std::int64_t B = 2, H = 3, T = 3;
  Var proj = random_var({B, T, 3 * H}, 10), h0 = random_var({B, H}, 11);
  Var w_hh = random_var({3 * H, H}, 12), b_hh = random_var({3 * H}, 13);
  auto run = [&] {
    Var h = h0;
    for (std::int64_t t = 0; t < T; ++t) {
      // A view of one time step, as a step op that reads strided rows would get it.
      Var step(proj.value().select(1, t), true);
      // Route the step's gradient back into proj by hand (test-only select); recorded
      // first so that it replays after the step's backward.
      Tape::current().record(
          [step, proj = proj, t] {
            if (!step.has_grad() || !proj.requires_grad()) return;
            Tensor g = proj.grad_buffer().select(1, t);
            for (std::int64_t b = 0; b < g.dim(0); ++b)
              for (std::int64_t j = 0; j < g.dim(1); ++j)
                g.set({b, j}, g.at({b, j}) + step.grad().at({b, j}));
          },
          {&step, &proj});
      h = gru_step(step, h, w_hh, b_hh);
    }
    return h;
  };
  EXPECT_TRUE(gradcheck(run, {proj, h0, w_hh, b_hh}));
}

TEST(GruStep, RejectsBadShapes) {
  Var gi = random_var({2, 9}, 1), h = random_var({2, 3}, 2), w = random_var({9, 3}, 3);
  EXPECT_THROW(gru_step(gi, h, random_var({9, 4}, 4), Var()), Error);
  EXPECT_THROW(gru_step(random_var({2, 8}, 5), h, w, Var()), Error);
  EXPECT_THROW(gru_step(gi, h, w, random_var({8}, 6)), Error);
  const std::vector<std::uint8_t> mask{1};
  EXPECT_THROW(gru_step(gi, h, w, Var(), mask), Error);
}

TEST(GruStep, NoGradRecordsNothing) {
  Tape::current().clear();
  Var gi = random_var({2, 9}, 1), h = random_var({2, 3}, 2), w = random_var({9, 3}, 3);
  NoGradGuard g;
  EXPECT_FALSE(gru_step(gi, h, w, Var()).requires_grad());
  EXPECT_EQ(Tape::current().size(), 0u);
}

}  // namespace
}  // namespace heed
