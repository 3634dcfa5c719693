#include "heed/fused/gru_additive_decoder.h"

#include <gtest/gtest.h>

#include <vector>

#include "heed/autograd/attention_op.h"
#include "heed/autograd/concat_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/gru.h"
#include "heed/autograd/index.h"
#include "heed/autograd/tape.h"
#include "heed/kernels/gemm.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

// B rows of different source lengths, n steps, GRU size Hd, annotations dk, attention A;
// the input projection has EMB columns before the context block.
constexpr std::int64_t B = 3, N = 4, M = 5, HD = 3, DK = 4, A = 5, EMB = 2;
const std::vector<std::int64_t> kLengths{5, 2, 1};

struct Inputs {
  explicit Inputs(std::int64_t batch = B, std::vector<std::int64_t> lens = kLengths)
      : rows(batch), lengths(std::move(lens)) {}
  std::int64_t rows;
  std::vector<std::int64_t> lengths;
  Var X = random_var({rows, N, 3 * HD}, 31);
  Var s0 = random_var({rows, HD}, 32);
  Var H = random_var({rows, M, DK}, 33);
  Var K = random_var({rows, M, A}, 34);
  Var w_ih = random_var({3 * HD, EMB + DK}, 35);
  Var w_hh = random_var({3 * HD, HD}, 36);
  Var b_hh = random_var({3 * HD}, 37);
  Var W_q = random_var({A, HD}, 38);
  Var v = random_var({1, A}, 39);

  GruAdditiveWeights weights() const {
    GruAdditiveWeights w;
    w.w_ih = w_ih;
    w.ctx_col = EMB;
    w.w_hh = w_hh;
    w.b_hh = b_hh;
    w.W_q = W_q;
    w.v = v;
    return w;
  }
  std::vector<Var> all() const { return {X, s0, H, K, w_ih, w_hh, b_hh, W_q, v}; }
};

// The same recurrence from the step ops, as Bahdanau::forward ran it before the fused op.
Var composed(const Inputs& in, Tensor* alphas = nullptr) {
  AttentionWeights aw;
  aw.W = in.W_q;
  aw.v = in.v;
  if (alphas) *alphas = Tensor::zeros({in.rows, N, M}, DType::f64);
  Var s = in.s0;
  std::vector<Var> rows;
  for (std::int64_t t = 0; t < N; ++t) {
    AttentionResult att = attention_step(AttentionScore::mlp, s, in.K, in.H, in.lengths, aw);
    Var x = add(select(in.X, 1, t), linear_columns(att.context, in.w_ih, EMB));
    s = gru_step(x, s, in.w_hh, in.b_hh);
    rows.push_back(concat({s, att.context}, 1));
    if (alphas) alphas->select(1, t).copy_from(att.alpha.value());
  }
  return stack(rows, 1);  // (B, N, HD + DK)
}

void expect_matches_step_ops(const Inputs& in) {
  Tensor alphas_fused, alphas_steps;
  Var fused =
      gru_additive_decoder(in.X, in.s0, in.H, in.K, in.lengths, in.weights(), &alphas_fused);
  ASSERT_EQ(fused.shape(), Shape({in.rows, N, HD + DK}));
  Var steps = composed(in, &alphas_steps);
  EXPECT_TRUE(all_close(fused.value(), steps.value(), 1e-12, 1e-12));
  EXPECT_TRUE(all_close(alphas_fused, alphas_steps, 1e-12, 1e-12));
  for (std::int64_t t = 0; t < N; ++t)  // padding gets no weight
    for (std::int64_t j = in.lengths[1]; j < M; ++j) EXPECT_EQ(alphas_fused.at({1, t, j}), 0.0);

  // Same seed gradient through both; every input's gradient must agree.
  Tensor seed = testing::random_tensor({in.rows, N, HD + DK}, 40);
  auto grads = [&](bool use_fused) {
    for (const Var& v : in.all()) v.clear_grad();
    Var y = use_fused ? gru_additive_decoder(in.X, in.s0, in.H, in.K, in.lengths, in.weights())
                      : composed(in);
    Tape::current().backward(y, seed);
    std::vector<Tensor> g;
    for (const Var& v : in.all()) g.push_back(v.grad().clone());
    return g;
  };
  std::vector<Tensor> gf = grads(true), gs = grads(false);
  const char* names[] = {"X", "s0", "H", "K", "w_ih", "w_hh", "b_hh", "W_q", "v"};
  for (std::size_t i = 0; i < gf.size(); ++i)
    EXPECT_TRUE(all_close(gf[i], gs[i], 1e-11, 1e-10)) << names[i];
}

TEST(BahdanauDecoder, MatchesTheStepOpsInValueAndGradient) { expect_matches_step_ops(Inputs()); }

TEST(BahdanauDecoder, SplitsTheRowsAcrossThreadsWithTheSameResult) {
  // 19 rows: with two threads each runs its block of rows through every step.
  std::vector<std::int64_t> lengths;
  for (std::int64_t b = 0; b < 19; ++b) lengths.push_back(1 + b % M);
  const int before = kernels::num_threads();
  kernels::set_num_threads(2);
  expect_matches_step_ops(Inputs(19, lengths));
  kernels::set_num_threads(before);
}

TEST(BahdanauDecoder, GradientCheck) {
  Inputs in;
  EXPECT_TRUE(gradcheck(
      [&] { return gru_additive_decoder(in.X, in.s0, in.H, in.K, kLengths, in.weights()); },
      in.all()));
}

TEST(BahdanauDecoder, WithoutRecurrentBiasAndFrozenWeights) {
  Inputs in;
  in.w_hh.set_requires_grad(false);
  in.v.set_requires_grad(false);
  GruAdditiveWeights w = in.weights();
  w.b_hh = Var();
  EXPECT_TRUE(gradcheck([&] { return gru_additive_decoder(in.X, in.s0, in.H, in.K, kLengths, w); },
                        {in.X, in.s0, in.H, in.K, in.w_ih, in.W_q}));
}

TEST(BahdanauDecoder, FloatAgreesWithDouble) {
  Inputs in;
  auto f32 = [](const Var& v) { return Var(v.value().to(DType::f32)); };
  GruAdditiveWeights w = in.weights(), wf;
  wf.w_ih = f32(w.w_ih);
  wf.ctx_col = EMB;
  wf.w_hh = f32(w.w_hh);
  wf.b_hh = f32(w.b_hh);
  wf.W_q = f32(w.W_q);
  wf.v = f32(w.v);
  Tensor yd = gru_additive_decoder(in.X, in.s0, in.H, in.K, kLengths, w).value();
  Tensor yf =
      gru_additive_decoder(f32(in.X), f32(in.s0), f32(in.H), f32(in.K), kLengths, wf).value();
  EXPECT_TRUE(all_close(yf.to(DType::f64), yd, 1e-5, 1e-4));
}

TEST(BahdanauDecoder, RejectsInconsistentInputs) {
  Inputs in;
  GruAdditiveWeights w = in.weights();
  const std::vector<std::int64_t> too_long{6, 2, 1}, too_few{5, 2};
  EXPECT_THROW(gru_additive_decoder(in.X, in.s0, in.H, in.K, too_long, w), Error);
  EXPECT_THROW(gru_additive_decoder(in.X, in.s0, in.H, in.K, too_few, w), Error);
  Var bad_K = random_var({B, M, A + 1}, 41);
  EXPECT_THROW(gru_additive_decoder(in.X, in.s0, in.H, bad_K, kLengths, w), Error);
  GruAdditiveWeights narrow = w;
  narrow.ctx_col = EMB + 1;  // the context block would run past W_ih's columns
  EXPECT_THROW(gru_additive_decoder(in.X, in.s0, in.H, in.K, kLengths, narrow), Error);
  Var bad_X = random_var({B, N, 3 * HD + 1}, 42);
  EXPECT_THROW(gru_additive_decoder(bad_X, in.s0, in.H, in.K, kLengths, w), Error);
}

}  // namespace
}  // namespace heed
