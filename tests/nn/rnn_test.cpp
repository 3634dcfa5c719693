#include "heed/nn/rnn.h"

#include <gtest/gtest.h>

#include "autograd/rnn_reference.h"
#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::gradcheck;
using testing::join;
using testing::random_var;

TEST(GRU, PyTorchParameterNamesAndShapes) {
  Rng rng(1);
  GRU gru(5, 4, {.num_layers = 2, .bidirectional = true}, rng);
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
  for (auto& [name, v] : params)
    for (double x : v.value().to_vector()) EXPECT_LE(std::abs(x), 0.5) << name;
  LSTM lstm(5, 4, {.bias = false}, rng);
  ASSERT_EQ(lstm.named_parameters().size(), 2u);
  EXPECT_EQ(lstm.parameter("weight_hh_l0").shape(), Shape({16, 4}));
}

TEST(GRU, ForwardMatchesNaiveLoopAndStateOrdering) {
  Rng rng(2);
  GRU gru(3, 4, {.num_layers = 2, .bidirectional = true, .dtype = DType::f64}, rng);
  Var x = random_var({3, 5, 3}, 1, -2, 2);
  const std::vector<std::int32_t> lengths{2, 5, 3};
  RnnOutput r = gru.forward(x, lengths, rng);
  ASSERT_EQ(r.output.shape(), Shape({3, 5, 8}));
  ASSERT_EQ(r.h_n.shape(), Shape({4, 3, 4}));
  EXPECT_FALSE(r.c_n.defined());
  std::vector<testing::RefWeights> rw;
  for (const RnnWeights& w : gru.layer_weights())
    rw.push_back(testing::ref_weights(w.w_ih, w.w_hh, w.b_ih, w.b_hh));
  std::vector<double> xs = x.value().to_vector();
  for (std::int64_t b = 0; b < 3; ++b) {
    std::vector<double> xb(xs.begin() + b * 15, xs.begin() + (b + 1) * 15);
    testing::RefSequence ref = testing::ref_sequence(false, rw, 2, true, 3, 4, xb, lengths[b]);
    for (std::int64_t t = 0; t < lengths[b]; ++t)
      for (std::int64_t j = 0; j < 8; ++j)
        EXPECT_NEAR(r.output.value().at({b, t, j}), ref.output[t * 8 + j], 1e-12);
    for (std::int64_t k = 0; k < 4; ++k)
      for (std::int64_t j = 0; j < 4; ++j)
        EXPECT_NEAR(r.h_n.value().at({k, b, j}), ref.h_n[k * 4 + j], 1e-12);
    // h_n of the last layer: forward = output at the last real token, reverse = output at 0.
    for (std::int64_t j = 0; j < 4; ++j) {
      EXPECT_EQ(r.h_n.value().at({2, b, j}), r.output.value().at({b, lengths[b] - 1, j}));
      EXPECT_EQ(r.h_n.value().at({3, b, j}), r.output.value().at({b, 0, 4 + j}));
    }
  }
}

TEST(LSTM, GradientCheckStackedBidirectional) {
  Rng rng(3);
  LSTM lstm(2, 3, {.num_layers = 2, .bidirectional = true, .dtype = DType::f64}, rng);
  Var x = random_var({2, 3, 2}, 4);
  Var h0 = random_var({4, 2, 3}, 5), c0 = random_var({4, 2, 3}, 6);
  std::vector<Var> inputs = lstm.parameters();
  inputs.insert(inputs.end(), {x, h0, c0});
  EXPECT_TRUE(gradcheck(
      [&] {
        RnnOutput r = lstm.forward(x, {3, 2}, rng, h0, c0);
        return join({r.output, r.h_n, r.c_n});
      },
      inputs));
}

TEST(GRU, GradientCheckUnidirectional) {
  Rng rng(4);
  GRU gru(2, 3, {.dtype = DType::f64}, rng);
  Var x = random_var({3, 4, 2}, 7);
  std::vector<Var> inputs = gru.parameters();
  inputs.push_back(x);
  EXPECT_TRUE(gradcheck(
      [&] {
        RnnOutput r = gru.forward(x, {4, 1, 2}, rng);
        return join({r.output, r.h_n});
      },
      inputs));
}

TEST(GRU, DropoutBetweenLayersOnlyInTraining) {
  Rng init(5);
  GRU gru(3, 4, {.num_layers = 2, .dropout = 0.5}, init);
  Var x(random_var({2, 4, 3}, 8).value().to(DType::f32));
  Rng a(9), b(9), c(10);
  Tensor train1 = gru.forward(x, {4, 3}, a).output.value();
  Tensor train2 = gru.forward(x, {4, 3}, b).output.value();
  Tensor train3 = gru.forward(x, {4, 3}, c).output.value();
  EXPECT_TRUE(testing::all_close(train1, train2, 0, 0)) << "same seed, same mask";
  EXPECT_FALSE(testing::all_close(train1, train3, 1e-6, 0)) << "another seed, another mask";
  gru.eval();
  Tensor eval1 = gru.forward(x, {4, 3}, a).output.value();
  Tensor eval2 = gru.forward(x, {4, 3}, c).output.value();
  EXPECT_TRUE(testing::all_close(eval1, eval2, 0, 0));
  // One layer: dropout has nothing to act on (PyTorch applies it between layers only).
  Rng init2(5);
  GRU single(3, 4, {.dropout = 0.5}, init2);
  EXPECT_TRUE(testing::all_close(single.forward(x, {4, 3}, a).output.value(),
                                 single.forward(x, {4, 3}, c).output.value(), 0, 0));
}

TEST(GRU, RejectsWrongInputSize) {
  Rng rng(6);
  GRU gru(3, 4, {}, rng);
  Var x(Tensor::zeros({2, 4, 5}));
  EXPECT_THROW(gru.forward(x, {4, 3}, rng), Error);
  EXPECT_THROW(GRU(3, 4, {.num_layers = 0}, rng), Error);
}

}  // namespace
}  // namespace heed
