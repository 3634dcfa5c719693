// The REINFORCE loss of hard attention (train/reinforce.h, docs/MODELS.md#hard-attention):
// its gradient in double against finite differences with the samples held fixed, its sign
// (a better-than-baseline sample becomes more probable), the masking, the baseline and the
// per-sentence NLL.
#include <gtest/gtest.h>

#include <cmath>

#include "heed/autograd/attention_hard.h"
#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/tape.h"
#include "heed/nn/attention_layer.h"
#include "heed/train/reinforce.h"
#include "heed/train/sgd.h"
#include "support/gradcheck.h"

namespace heed {
namespace {

using testing::gradcheck;
using testing::random_var;

AttentionConfig hard_mlp() {
  AttentionConfig c;
  c.score = AttentionScore::mlp;
  c.query_dim = 4;
  c.key_dim = 3;
  c.attn_dim = 5;
  c.hard = true;
  return c;
}

// Three steps of hard attention for B = 2 (lengths 4 and 2 over m = 4 positions), samples
// from Rng(seed) so that every call draws the same positions.
HardAttentionTrace three_steps(const Attention& att, const std::vector<Var>& qs, const Var& H,
                               std::uint64_t seed) {
  const std::vector<std::int64_t> src_len{4, 2};
  Rng sampler(seed);
  HardAttentionTrace trace;
  Var K = att.keys(H);
  for (const Var& q : qs) {
    Attention::Output o = att.forward(q, H, K, src_len, &sampler);
    trace.log_prob.push_back(o.log_prob);
    trace.entropy.push_back(o.entropy);
  }
  return trace;
}

TEST(Reinforce, SurrogateGradientMatchesFiniteDifferences) {
  Rng init(3);
  Attention att(hard_mlp(), init, DType::f64);
  const std::vector<Var> qs{random_var({2, 4}, 7), random_var({2, 4}, 8), random_var({2, 4}, 9)};
  Var H = random_var({2, 4, 3}, 10);
  const std::vector<double> nll{2.5, 0.7};
  const std::vector<std::int64_t> tgt_len{3, 2};  // sentence 1's third step is masked
  ReinforceOptions o;
  o.weight = 0.8;
  o.entropy_weight = 0.3;
  std::vector<Var> in = att.parameters();
  in.insert(in.end(), qs.begin(), qs.end());
  EXPECT_TRUE(gradcheck(
      [&] {
        ReinforceBaseline b{true, 0.5};  // a fresh copy: every call sees the same baseline
        return reinforce_loss(three_steps(att, qs, H, 11), nll, tgt_len, 5.0, o, b);
      },
      in));
  // The value: (1/N) sum_b [lambda_r (NLL_b - beta |y_b|) sum_t log pi - lambda_e sum_t H].
  NoGradGuard g;
  const HardAttentionTrace tr = three_steps(att, qs, H, 11);
  double expect = 0;
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t t = 0; t < tgt_len[static_cast<std::size_t>(b)]; ++t) {
      const double adv = nll[static_cast<std::size_t>(b)] - 0.5 * static_cast<double>(tgt_len[static_cast<std::size_t>(b)]);
      expect += (o.weight * adv * tr.log_prob[static_cast<std::size_t>(t)].value().at({b}) -
                 o.entropy_weight * tr.entropy[static_cast<std::size_t>(t)].value().at({b})) / 5.0;
    }
  ReinforceBaseline b{true, 0.5};
  EXPECT_NEAR(reinforce_loss(tr, nll, tgt_len, 5.0, o, b).value().item(), expect, 1e-12);
}

TEST(Reinforce, EntropyGradientMatchesFiniteDifferences) {
  Var alpha = random_var({3, 4}, 2, 0.05, 1.0);  // unnormalised rows, like a local-p window
  EXPECT_TRUE(gradcheck([&] { return attention_entropy(alpha); }, {alpha}));
  NoGradGuard g;
  Tensor uniform = Tensor::from({1, 4}, {0.25, 0.25, 0.25, 0.25}, DType::f64);
  EXPECT_NEAR(attention_entropy(Var(uniform)).value().at({0}), std::log(4.0), 1e-12);
  Tensor with_zero = Tensor::from({1, 3}, {0.5, 0.0, 0.5}, DType::f64);
  EXPECT_NEAR(attention_entropy(Var(with_zero)).value().at({0}), std::log(2.0), 1e-12);
}

// One SGD step on the REINFORCE term alone: log pi of the sampled position goes up when the
// sentence did better (lower NLL) than the baseline, down when it did worse.
double log_prob_change(double nll) {
  Rng init(3);
  Attention att(hard_mlp(), init, DType::f64);
  const std::vector<Var> qs{random_var({2, 4}, 7)};
  Var H = random_var({2, 4, 3}, 10);
  const std::vector<std::int64_t> tgt_len{1, 1};
  auto log_pi = [&] {
    NoGradGuard g;
    return three_steps(att, qs, H, 11).log_prob[0].value().at({0});
  };
  const double before = log_pi();
  Sgd sgd(att.parameters(), SgdOptions{0.05});
  sgd.zero_grad();
  ReinforceBaseline b{true, 1.0};
  ReinforceOptions o;
  // Sentence 1 has exactly the baseline's NLL: no push either way.
  Var loss = reinforce_loss(three_steps(att, qs, H, 11), std::vector<double>{nll, 1.0}, tgt_len,
                            2.0, o, b);
  Tape::current().backward(loss);
  sgd.step();
  return log_pi() - before;
}

TEST(Reinforce, BetterThanBaselineBecomesMoreProbable) {
  EXPECT_GT(log_prob_change(0.4), 0.0);  // NLL below the baseline 1.0
  EXPECT_LT(log_prob_change(1.6), 0.0);  // above it
}

TEST(Reinforce, MaskedStepsGetNoGradient) {
  Rng init(3);
  Attention att(hard_mlp(), init, DType::f64);
  const std::vector<Var> qs{random_var({2, 4}, 7), random_var({2, 4}, 8), random_var({2, 4}, 9)};
  Var H = random_var({2, 4, 3}, 10);
  HardAttentionTrace tr = three_steps(att, qs, H, 11);
  ReinforceBaseline b{true, 0.1};
  ReinforceOptions o;
  o.entropy_weight = 0.5;
  Var loss = reinforce_loss(tr, std::vector<double>{1.0, 2.0}, std::vector<std::int64_t>{3, 1},
                            4.0, o, b);
  Tape::current().backward(loss);
  // Sentence 1 (length 1): its queries at steps 2 and 3 get nothing, step 1 something.
  EXPECT_NE(qs[0].grad().at({1, 0}), 0.0);
  for (std::int64_t k = 0; k < 4; ++k) {
    EXPECT_EQ(qs[1].grad().at({1, k}), 0.0);
    EXPECT_EQ(qs[2].grad().at({1, k}), 0.0);
    EXPECT_NE(qs[2].grad().at({0, k}), 0.0);
  }
}

TEST(Reinforce, BaselineStartsAtTheFirstBatchThenMovesSlowly) {
  Rng init(3);
  Attention att(hard_mlp(), init, DType::f64);
  const std::vector<Var> qs{random_var({2, 4}, 7)};
  Var H = random_var({2, 4, 3}, 10);
  ReinforceBaseline b;
  ReinforceOptions o;
  o.baseline_decay = 0.75;
  const std::vector<std::int64_t> len{1, 3};
  NoGradGuard g;
  // First batch: the baseline is its own per-token mean (8 / 4), so the advantages are
  // 1 - 2 = -1 and 7 - 6 = +1.
  Var first = reinforce_loss(three_steps(att, qs, H, 11), std::vector<double>{1.0, 7.0}, len, 1.0,
                             o, b);
  const HardAttentionTrace tr = three_steps(att, qs, H, 11);
  EXPECT_NEAR(first.value().item(),
              -tr.log_prob[0].value().at({0}) + tr.log_prob[0].value().at({1}), 1e-12);
  EXPECT_TRUE(b.has_value);
  EXPECT_DOUBLE_EQ(b.per_token, 2.0);
  reinforce_loss(tr, std::vector<double>{4.0, 12.0}, len, 1.0, o, b);  // batch mean 4
  EXPECT_DOUBLE_EQ(b.per_token, 0.75 * 2.0 + 0.25 * 4.0);
}

// Data-parallel training gives each rank some of a batch's sentences: with the whole batch's
// token count as normaliser and its mean NLL for the baseline, the ranks' terms add up to the
// one-process term, value and gradient, and every rank's baseline moves the same way.
TEST(Reinforce, ShardsWithTheWholeBatchMeanAddUpToTheWholeBatch) {
  const std::vector<double> nll{2.5, 0.7, 4.0};
  const std::vector<std::int64_t> len{3, 1, 2};
  const double N = 6.0, mean = (2.5 + 0.7 + 4.0) / 6.0;
  ReinforceOptions o;
  o.weight = 0.8;
  o.entropy_weight = 0.3;
  // Two steps; log pi and H of each (step, sentence) as leaves.
  const std::vector<std::vector<double>> lp{{-0.3, -1.2, -0.7}, {-2.0, -0.1, -0.4}};
  const std::vector<std::vector<double>> ent{{0.9, 0.2, 0.5}, {0.4, 1.1, 0.6}};
  auto trace_of = [&](const std::vector<std::size_t>& rows, std::vector<Var>& leaves) {
    HardAttentionTrace t;
    for (std::size_t s = 0; s < lp.size(); ++s) {
      std::vector<double> a, e;
      for (std::size_t r : rows) {
        a.push_back(lp[s][r]);
        e.push_back(ent[s][r]);
      }
      const auto n = static_cast<std::int64_t>(rows.size());
      t.log_prob.emplace_back(Tensor::from({n}, a, DType::f64), true);
      t.entropy.emplace_back(Tensor::from({n}, e, DType::f64), true);
      leaves.push_back(t.log_prob.back());
      leaves.push_back(t.entropy.back());
    }
    return t;
  };
  for (const bool has_baseline : {false, true}) {
    SCOPED_TRACE(has_baseline ? "with a baseline" : "first batch");
    std::vector<Var> whole_leaves;
    ReinforceBaseline whole_b{has_baseline, 0.4};
    Var whole = reinforce_loss(trace_of({0, 1, 2}, whole_leaves), nll, len, N, o, whole_b);
    Tape::current().backward(whole);
    // Rank 0: sentences 0 and 2; rank 1: sentence 1.
    std::vector<Var> l0, l1;
    ReinforceBaseline b0{has_baseline, 0.4}, b1{has_baseline, 0.4};
    Var r0 = reinforce_loss(trace_of({0, 2}, l0), std::vector<double>{nll[0], nll[2]},
                            std::vector<std::int64_t>{len[0], len[2]}, N, o, b0, mean);
    Tape::current().backward(r0);
    Var r1 = reinforce_loss(trace_of({1}, l1), std::vector<double>{nll[1]},
                            std::vector<std::int64_t>{len[1]}, N, o, b1, mean);
    Tape::current().backward(r1);
    EXPECT_NEAR(r0.value().item() + r1.value().item(), whole.value().item(), 1e-12);
    EXPECT_DOUBLE_EQ(b0.per_token, whole_b.per_token);
    EXPECT_DOUBLE_EQ(b1.per_token, whole_b.per_token);
    for (std::size_t k = 0; k < whole_leaves.size(); ++k) {
      const Tensor& g = whole_leaves[k].grad();
      EXPECT_NEAR(l0[k].grad().at({0}), g.at({0}), 1e-12) << "leaf " << k;
      EXPECT_NEAR(l0[k].grad().at({1}), g.at({2}), 1e-12) << "leaf " << k;
      EXPECT_NEAR(l1[k].grad().at({0}), g.at({1}), 1e-12) << "leaf " << k;
    }
  }
}

TEST(Reinforce, SentenceNllSumsTheCrossEntropyRows) {
  Var logits = random_var({5, 6}, 4, -2.0, 2.0);
  const std::vector<std::int32_t> targets{1, 5, 0, 3, 2};
  const std::vector<double> nll = sentence_nll(logits.value(), targets, std::vector<std::int64_t>{2, 3});
  ASSERT_EQ(nll.size(), 2u);
  NoGradGuard g;
  const double mean = cross_entropy(logits, targets).value().item();
  EXPECT_NEAR((nll[0] + nll[1]) / 5.0, mean, 1e-12);
  const double first = cross_entropy(Var(logits.value().slice(0, 0, 2).clone()),
                                     std::vector<std::int32_t>{1, 5}).value().item();
  EXPECT_NEAR(nll[0], 2.0 * first, 1e-12);
  EXPECT_THROW(sentence_nll(logits.value(), targets, std::vector<std::int64_t>{2, 2}), Error);
}

}  // namespace
}  // namespace heed
