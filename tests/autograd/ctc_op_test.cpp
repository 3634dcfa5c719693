// The CTC loss (autograd/ctc_op.h, kernels/ctc.h): against PyTorch's F.ctc_loss
// (tests/golden/ctc: tools/make_goldens.py) in float64 and float32, gradient-checked in
// float64, on cases worked by hand, and on bad input.
#include "heed/autograd/ctc_op.h"

#include <cmath>

#include <gtest/gtest.h>

#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "support/golden.h"
#include "support/gradcheck.h"

namespace heed {
namespace {

std::vector<std::vector<std::int32_t>> golden_targets(const SafeTensorsFile& g) {
  const std::vector<std::int64_t> lengths = testing::golden_ints(g.get("in.target_lengths"));
  const std::vector<std::int64_t> padded = testing::golden_ints(g.get("in.targets"));
  const std::size_t width = padded.size() / lengths.size();
  std::vector<std::vector<std::int32_t>> out(lengths.size());
  for (std::size_t b = 0; b < lengths.size(); ++b)
    for (std::int64_t i = 0; i < lengths[b]; ++i)
      out[b].push_back(static_cast<std::int32_t>(padded[b * width + static_cast<std::size_t>(i)]));
  return out;
}

class GoldenCtc : public ::testing::TestWithParam<DType> {};

TEST_P(GoldenCtc, MatchesTorchCtcLoss) {
  const DType dtype = GetParam();
  const SafeTensorsFile g = testing::load_golden("ctc");
  Var logits(g.get("in.logits").to(dtype), true);
  std::vector<std::int64_t> lengths = testing::golden_ints(g.get("in.lengths"));
  CtcResult r = ctc_loss(logits, lengths, golden_targets(g), 0);
  EXPECT_EQ(r.infeasible, 1);  // row 3: three symbols in two frames
  const double tol = testing::golden_tolerance(dtype);
  testing::expect_close_to_golden(r.loss.value(), g.get("out.loss"), "loss", tol);
  // L = loss * seed.loss
  Var loss = scale(r.loss, g.get("seed.loss").to_vector()[0]);
  Tape::current().backward(loss);
  testing::expect_close_to_golden(logits.grad(), g.get("grad.logits"), "grad.logits", tol);
}

INSTANTIATE_TEST_SUITE_P(DTypes, GoldenCtc, ::testing::Values(DType::f64, DType::f32),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(CtcLoss, GradientsMatchFiniteDifferences) {
  // Repeats (a blank must separate them), a symbol next to itself at the end, an empty
  // target, and a row of exactly as many frames as its target needs.
  Var x = testing::random_var({4, 7, 4}, 11, -2.0, 2.0);
  const std::vector<std::int64_t> frames = {7, 5, 3, 3};
  const std::vector<std::vector<std::int32_t>> targets = {{1, 1, 2}, {3, 2, 2}, {}, {1, 2, 3}};
  EXPECT_TRUE(testing::gradcheck([&] { return ctc_loss(x, frames, targets, 0).loss; }, {x}));
  // The blank elsewhere than 0.
  EXPECT_TRUE(testing::gradcheck([&] { return ctc_loss(x, frames, {{0, 1}, {2}, {0, 0}, {}}, 3).loss; }, {x}));
}

TEST(CtcLoss, WorkedCases) {
  // One frame, one symbol: -log softmax(x)[y]. Two frames, nothing to emit: blanks only.
  Tensor t = testing::random_tensor({2, 2, 3}, 5);
  const double* x = t.data<double>();
  const auto log_softmax = [&](std::int64_t row, std::int64_t v) {
    double s = 0;
    for (std::int64_t k = 0; k < 3; ++k) s += std::exp(x[row * 3 + k]);
    return x[row * 3 + v] - std::log(s);
  };
  const CtcResult one = ctc_loss(Var(t), {1, 2}, {{2}, {}}, 0);
  const double expected = -log_softmax(0, 2) - log_softmax(2, 0) - log_softmax(3, 0);
  EXPECT_NEAR(one.loss.value().item(), expected, 1e-12);
  // Two frames, one symbol y: y y, blank y, y blank.
  const CtcResult two = ctc_loss(Var(t.slice(0, 0, 1).contiguous()), {2}, {{1}}, 0);
  const double p = std::exp(log_softmax(0, 1) + log_softmax(1, 1)) +
                   std::exp(log_softmax(0, 0) + log_softmax(1, 1)) +
                   std::exp(log_softmax(0, 1) + log_softmax(1, 0));
  EXPECT_NEAR(two.loss.value().item(), -std::log(p), 1e-12);
}

TEST(CtcLoss, InfeasibleRowsCountNothingAndGetNoGradient) {
  Var x = testing::random_var({2, 3, 4}, 3);
  // Row 0: 1 1 needs three frames (1 blank 1), has two. Row 1: fine.
  CtcResult r = ctc_loss(x, {2, 3}, {{1, 1}, {2}}, 0);
  EXPECT_EQ(r.infeasible, 1);
  const CtcResult alone = ctc_loss(Var(x.value().slice(0, 1, 2).contiguous()), {3}, {{2}}, 0);
  EXPECT_NEAR(r.loss.value().item(), alone.loss.value().item(), 1e-12);
  Tape::current().backward(r.loss);
  const Tensor g = x.grad();
  for (std::int64_t i = 0; i < 12; ++i) EXPECT_EQ(g.data<double>()[i], 0.0) << i;
}

TEST(CtcLoss, RefusesBadInput) {
  Var x = testing::random_var({2, 3, 4}, 3);
  EXPECT_THROW(ctc_loss(x, {3, 3}, {{0}, {1}}, 0), Error);      // the blank as a target
  EXPECT_THROW(ctc_loss(x, {3, 3}, {{4}, {1}}, 0), Error);      // outside the symbols
  EXPECT_THROW(ctc_loss(x, {4, 3}, {{1}, {1}}, 0), Error);      // more frames than T
  EXPECT_THROW(ctc_loss(x, {3}, {{1}, {1}}, 0), Error);         // lengths for one row
  EXPECT_THROW(ctc_loss(x, {3, 3}, {{1}, {1}}, 4), Error);      // blank outside
  EXPECT_THROW(ctc_loss(Var(testing::random_tensor({3, 4}, 1)), {3, 3}, {{1}, {1}}, 0), Error);
}

}  // namespace
}  // namespace heed
