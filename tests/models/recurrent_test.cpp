// The recurrent parameter modules of models/recurrent.h: PyTorch's names, shapes and
// initialisation, a stack's forward as rnn_sequence over its own weights, and the PyTorch
// goldens of nn.GRU / nn.LSTM (tests/golden/{gru,lstm2,bigru_packed}) loaded by name. The
// op itself (padding, initial states, gradients, dropout) is tested in
// tests/autograd/rnn_sequence_test.cpp.
#include "heed/models/recurrent.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/golden.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::GoldenCase;
using testing::random_var;
constexpr auto kF32 = kernels::MatmulPrecision::f32;

TEST(RecurrentStack, PyTorchParameterNamesShapesAndInit) {
  Rng rng(1);
  RecurrentStack gru(RnnCell::gru, 5, 4, 2, true, rng, DType::f32);
  const std::vector<std::string> names{
      "weight_ih_l0",         "weight_hh_l0",         "bias_ih_l0",         "bias_hh_l0",
      "weight_ih_l0_reverse", "weight_hh_l0_reverse", "bias_ih_l0_reverse", "bias_hh_l0_reverse",
      "weight_ih_l1",         "weight_hh_l1",         "bias_ih_l1",         "bias_hh_l1",
      "weight_ih_l1_reverse", "weight_hh_l1_reverse", "bias_ih_l1_reverse", "bias_hh_l1_reverse"};
  auto params = gru.named_parameters();
  ASSERT_EQ(params.size(), names.size());
  for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(params[i].first, names[i]);
  EXPECT_EQ(gru.parameter("weight_ih_l0").shape(), Shape({12, 5}));
  EXPECT_EQ(gru.parameter("weight_ih_l1_reverse").shape(), Shape({12, 8}));
  EXPECT_EQ(gru.parameter("weight_hh_l1").shape(), Shape({12, 4}));
  EXPECT_EQ(gru.output_dim(), 8);
  for (auto& [name, v] : params)
    for (double x : v.value().to_vector()) EXPECT_LE(std::abs(x), 0.5) << name;  // 1/sqrt(4)
  RecurrentStack lstm(RnnCell::lstm, 5, 4, 1, false, rng, DType::f32);
  EXPECT_EQ(lstm.parameter("weight_hh_l0").shape(), Shape({16, 4}));
  EXPECT_EQ(lstm.weights().size(), 1u);
  EXPECT_EQ(lstm.directions(), 1);
}

TEST(RecurrentStack, ForwardIsRnnSequenceOverItsWeights) {
  Rng rng(2);
  RecurrentStack stack(RnnCell::lstm, 3, 4, 2, true, rng, DType::f64);
  Var x = random_var({3, 5, 3}, 1, -2, 2);
  const std::vector<std::int32_t> lengths{2, 5, 3};
  RnnSequenceOutput r = stack.forward(x, lengths, 0.0, false, nullptr, kF32);
  RnnSequenceOptions opt{.cell = RnnCell::lstm, .num_layers = 2, .bidirectional = true};
  RnnSequenceOutput want = rnn_sequence(opt, x, lengths, stack.weights());
  EXPECT_TRUE(testing::all_close(r.output.value(), want.output.value(), 0, 0));
  EXPECT_TRUE(testing::all_close(r.h_n.value(), want.h_n.value(), 0, 0));
  EXPECT_TRUE(testing::all_close(r.c_n.value(), want.c_n.value(), 0, 0));
  EXPECT_EQ(r.output.shape(), Shape({3, 5, 8}));
}

TEST(RecurrentStack, DropoutBetweenLayersOnlyInTraining) {
  Rng init(5);
  RecurrentStack gru(RnnCell::gru, 3, 4, 2, false, init, DType::f32);
  Var x(random_var({2, 4, 3}, 8).value().to(DType::f32));
  Rng a(9), b(9), c(10);
  Tensor train1 = gru.forward(x, {4, 3}, 0.5, true, &a, kF32).output.value();
  Tensor train2 = gru.forward(x, {4, 3}, 0.5, true, &b, kF32).output.value();
  Tensor train3 = gru.forward(x, {4, 3}, 0.5, true, &c, kF32).output.value();
  EXPECT_TRUE(testing::all_close(train1, train2, 0, 0)) << "same seed, same mask";
  EXPECT_FALSE(testing::all_close(train1, train3, 1e-6, 0)) << "another seed, another mask";
  Tensor eval1 = gru.forward(x, {4, 3}, 0.5, false, &a, kF32).output.value();
  Tensor eval2 = gru.forward(x, {4, 3}, 0.5, false, &c, kF32).output.value();
  EXPECT_TRUE(testing::all_close(eval1, eval2, 0, 0));
  // One layer: dropout has nothing to act on (PyTorch applies it between layers only).
  Rng init2(5);
  RecurrentStack single(RnnCell::gru, 3, 4, 1, false, init2, DType::f32);
  EXPECT_TRUE(testing::all_close(single.forward(x, {4, 3}, 0.5, true, &a, kF32).output.value(),
                                 single.forward(x, {4, 3}, 0.5, true, &c, kF32).output.value(), 0, 0));
}

TEST(RecurrentStack, RejectsBadSizes) {
  Rng rng(6);
  RecurrentStack gru(RnnCell::gru, 3, 4, 1, false, rng, DType::f32);
  Var x(Tensor::zeros({2, 4, 5}));
  EXPECT_THROW(gru.forward(x, {4, 3}, 0.0, false, nullptr, kF32), Error);
  EXPECT_THROW(RecurrentStack(RnnCell::gru, 3, 4, 0, false, rng, DType::f32), Error);
  EXPECT_THROW(RecurrentStack(RnnCell::lstm, 0, 4, 1, false, rng, DType::f32), Error);
}

TEST(RecurrentCell, PyTorchNamesShapesAndInit) {
  Rng rng(1);
  RecurrentCell gru(RnnCell::gru, 5, 4, rng, DType::f32);
  auto params = gru.named_parameters();
  ASSERT_EQ(params.size(), 4u);
  EXPECT_EQ(params[0].first, "weight_ih");
  EXPECT_EQ(params[1].first, "weight_hh");
  EXPECT_EQ(params[2].first, "bias_ih");
  EXPECT_EQ(params[3].first, "bias_hh");
  EXPECT_EQ(gru.weight_ih.shape(), Shape({12, 5}));
  EXPECT_EQ(gru.weight_hh.shape(), Shape({12, 4}));
  EXPECT_EQ(gru.bias_hh.shape(), Shape({12}));
  for (auto& [name, v] : params)
    for (double x : v.value().to_vector()) EXPECT_LE(std::abs(x), 0.5) << name;
  RecurrentCell lstm(RnnCell::lstm, 3, 4, rng, DType::f64);
  EXPECT_EQ(lstm.weight_ih.shape(), Shape({16, 3}));
  EXPECT_THROW(RecurrentCell(RnnCell::gru, 3, 0, rng, DType::f32), Error);
}

TEST(CellStack, NamesAsAModuleListAndLayerInputs) {
  Rng rng(3);
  CellStack stack(RnnCell::lstm, 6, 4, 2, rng, DType::f32);
  ASSERT_EQ(stack.size(), 2u);
  EXPECT_EQ(stack[0].input(), 6);
  EXPECT_EQ(stack[1].input(), 4);
  auto params = stack.named_parameters();
  ASSERT_EQ(params.size(), 8u);
  EXPECT_EQ(params[0].first, "0.weight_ih");
  EXPECT_EQ(params[7].first, "1.bias_hh");
  EXPECT_EQ(stack.parameter("1.weight_ih").shape(), Shape({16, 4}));
}

// Golden: the weights loaded by their PyTorch names, outputs and every gradient of
// L = sum_X sum(out.X * seed.X) within |a - ref| <= tol * (1 + max |ref|), f64 and f32.
class GoldenRecurrent : public ::testing::TestWithParam<DType> {};

TEST_P(GoldenRecurrent, GruWithInitialState) {
  GoldenCase c("gru", GetParam());
  Rng rng(1);
  RecurrentStack gru(RnnCell::gru, 3, 4, 1, false, rng, c.dtype());
  c.load(gru);
  Var x = c.input("x"), h0 = c.input("h0");
  RnnSequenceOutput r = rnn_sequence({.cell = RnnCell::gru}, x, std::vector<std::int32_t>(3, 5),
                                     gru.weights(), nullptr, h0);
  c.check({{"output", r.output}, {"h_n", r.h_n}});
}

TEST_P(GoldenRecurrent, TwoLayerLstmWithInitialState) {
  GoldenCase c("lstm2", GetParam());
  Rng rng(2);
  RecurrentStack lstm(RnnCell::lstm, 3, 5, 2, false, rng, c.dtype());
  c.load(lstm);
  Var x = c.input("x"), h0 = c.input("h0"), c0 = c.input("c0");
  RnnSequenceOutput r = rnn_sequence({.cell = RnnCell::lstm, .num_layers = 2}, x,
                                     std::vector<std::int32_t>(3, 4), lstm.weights(), nullptr,
                                     h0, c0);
  c.check({{"output", r.output}, {"h_n", r.h_n}, {"c_n", r.c_n}});
}

// Packed sequences with unsorted lengths [3, 5, 2]: zero outputs at padding, the reverse
// direction starting at each sequence's own last token.
TEST_P(GoldenRecurrent, BidirectionalGruWithPadding) {
  GoldenCase c("bigru_packed", GetParam());
  Rng rng(3);
  RecurrentStack gru(RnnCell::gru, 3, 4, 1, true, rng, c.dtype());
  c.load(gru);
  Var x = c.input("x");
  RnnSequenceOutput r = gru.forward(x, c.lengths<std::int32_t>(), 0.0, false, nullptr, kF32);
  c.check({{"output", r.output}, {"h_n", r.h_n}});
}

INSTANTIATE_TEST_SUITE_P(Dtypes, GoldenRecurrent, ::testing::Values(DType::f64, DType::f32),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace heed
