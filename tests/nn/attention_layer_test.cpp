#include "heed/nn/attention_layer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "heed/autograd/attention_hard.h"
#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

std::vector<std::string> names(const Module& m) {
  std::vector<std::string> out;
  for (auto& [n, v] : m.named_parameters()) out.push_back(n);
  return out;
}

AttentionConfig config(const std::string& score, bool local = false) {
  AttentionConfig c;
  c.score = parse_enum<AttentionScore>(score, "score");
  c.query_dim = 4;
  c.key_dim = score_spec(c.score).same_size ? 4 : 3;
  c.attn_dim = 5;
  c.max_src_len = 6;
  c.local_p = local;
  c.window = local ? 2 : 0;
  return c;
}

TEST(AttentionModule, ParameterNamesAndShapesFollowTheReference) {
  Rng rng(1);
  Attention mlp(config("mlp"), rng);
  EXPECT_EQ(names(mlp), (std::vector<std::string>{"W_q.weight", "U_h.weight", "U_h.bias",
                                                   "v.weight"}));
  EXPECT_EQ(mlp.parameter("W_q.weight").shape(), Shape({5, 4}));
  EXPECT_EQ(mlp.parameter("U_h.weight").shape(), Shape({5, 3}));
  EXPECT_EQ(mlp.parameter("U_h.bias").shape(), Shape({5}));
  EXPECT_EQ(mlp.parameter("v.weight").shape(), Shape({1, 5}));

  Attention cat(config("concat", true), rng);
  EXPECT_EQ(names(cat), (std::vector<std::string>{"W_a.weight", "v_a.weight", "W_p.weight",
                                                   "v_p.weight"}));
  EXPECT_EQ(cat.parameter("W_a.weight").shape(), Shape({5, 7}));
  EXPECT_EQ(cat.parameter("W_p.weight").shape(), Shape({4, 4}));
  EXPECT_EQ(cat.parameter("v_p.weight").shape(), Shape({1, 4}));

  Attention gen(config("general"), rng);
  EXPECT_EQ(names(gen), std::vector<std::string>{"W_a.weight"});
  EXPECT_EQ(gen.parameter("W_a.weight").shape(), Shape({4, 3}));  // Linear(dk, dq)

  Attention loc(config("location"), rng);
  EXPECT_EQ(loc.parameter("W_a.weight").shape(), Shape({6, 4}));  // Linear(dq, max_src_len)

  Attention dot(config("dot"), rng);
  EXPECT_TRUE(names(dot).empty());

  AttentionConfig defaults = config("mlp");
  defaults.attn_dim = 0;  // defaults to the query size
  Attention def(defaults, rng);
  EXPECT_EQ(def.parameter("v.weight").shape(), Shape({1, 4}));
}

TEST(AttentionModule, RejectsBadConfigs) {
  Rng rng(1);
  AttentionConfig c = config("dot");
  c.key_dim = 3;
  EXPECT_THROW(Attention(c, rng), Error);
  EXPECT_THROW(Attention(config("cosine"), rng), Error);
  AttentionConfig l = config("mlp", true);
  l.window = 0;
  EXPECT_THROW(Attention(l, rng), Error);
}

TEST(AttentionModule, LocationRejectsLongSources) {
  Rng rng(1);
  Attention loc(config("location"), rng, DType::f64);
  Var q = random_var({2, 4}, 1), H = random_var({2, 7, 3}, 2);
  std::vector<std::int64_t> len{7, 3};
  EXPECT_THROW(loc.forward(q, H, loc.keys(H), len), Error);
}

TEST(AttentionModule, GradientCheckEveryScoreThroughKeys) {
  const std::vector<std::int64_t> len{4, 2};
  for (const ScoreSpec& e : attention_scores())
    for (bool local : {false, true}) {
      const std::string s(attention_score_name(e.score));
      Rng rng(5);
      Attention att(config(s, local), rng, DType::f64);
      Var q = random_var({2, 4}, 7);
      Var H = random_var({2, 4, att.config().key_dim}, 8);
      std::vector<Var> in = att.parameters();
      in.push_back(q);
      in.push_back(H);
      EXPECT_TRUE(gradcheck([&] { return att.forward(q, H, att.keys(H), len).context; }, in))
          << s << (local ? " local" : "");
    }
}

AttentionConfig with_features(const std::string& score, std::int64_t filters, bool coverage) {
  AttentionConfig c = config(score);
  c.location_filters = filters;
  c.location_width = 3;
  c.coverage = coverage;
  return c;
}

TEST(AttentionFeatures, ParameterNamesAndShapes) {
  Rng rng(1);
  Attention a(with_features("mlp", 2, true), rng, DType::f64);
  EXPECT_EQ(names(a), (std::vector<std::string>{"W_q.weight", "U_h.weight", "U_h.bias",
                                                 "v.weight", "F.weight", "U_f.weight",
                                                 "w_c.weight"}));
  EXPECT_EQ(a.parameter("F.weight").shape(), Shape({2, 1, 3}));
  EXPECT_EQ(a.parameter("U_f.weight").shape(), Shape({5, 2}));
  EXPECT_EQ(a.parameter("w_c.weight").shape(), Shape({5, 1}));
  // Neither feature: no term, no parameters.
  Attention plain(config("mlp"), rng, DType::f64);
  EXPECT_FALSE(plain.feature_term(random_var({2, 4}, 1), random_var({2, 4}, 2)).defined());
}

TEST(AttentionFeatures, TermIsTheConvolutionProjectedPlusTheCoverage) {
  Rng rng(2);
  Attention a(with_features("concat", 2, true), rng, DType::f64);
  Var alpha = random_var({2, 4}, 3), cov = random_var({2, 4}, 4);
  const Tensor F = a.parameter("F.weight").value(), U = a.parameter("U_f.weight").value(),
               w = a.parameter("w_c.weight").value();
  const Tensor term = a.feature_term(alpha, cov).value();
  ASSERT_EQ(term.shape(), Shape({2, 4, 5}));
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t j = 0; j < 4; ++j)
      for (std::int64_t i = 0; i < 5; ++i) {
        double v = w.at({i, 0}) * cov.value().at({b, j});
        for (std::int64_t c = 0; c < 2; ++c) {
          double f = 0;
          for (std::int64_t k = 0; k < 3; ++k)
            if (j + k - 1 >= 0 && j + k - 1 < 4) f += F.at({c, 0, k}) * alpha.value().at({b, j + k - 1});
          v += U.at({i, c}) * f;
        }
        EXPECT_NEAR(term.at({b, j, i}), v, 1e-12);
      }
}

TEST(AttentionFeatures, GradientCheckThroughTheStep) {
  Rng rng(3);
  Attention a(with_features("mlp", 3, true), rng, DType::f64);
  Var q = random_var({3, 4}, 5), H = random_var({3, 6, 3}, 6);
  Var alpha = random_var({3, 6}, 7, 0, 1), cov = random_var({3, 6}, 8, 0, 2);
  const std::vector<std::int64_t> len{6, 4, 2};
  std::vector<Var> in{q, H, alpha, cov};
  for (const Var& p : a.parameters()) in.push_back(p);
  EXPECT_TRUE(gradcheck(
      [&] {
        AttentionStepExtras extras;
        extras.key_term = a.feature_term(alpha, cov);
        Attention::Output o = a.forward(q, H, a.keys(H), len, nullptr,
                                        kernels::MatmulPrecision::f32, false, extras);
        return o.context;
      },
      in));
}

TEST(AttentionFeatures, RefusedByTheDotScoresAndEvenWidths) {
  Rng rng(4);
  EXPECT_THROW(Attention(with_features("general", 2, false), rng), Error);
  EXPECT_THROW(Attention(with_features("dot", 0, true), rng), Error);
  AttentionConfig even = with_features("mlp", 2, false);
  even.location_width = 4;
  EXPECT_THROW(Attention(even, rng), Error);
}

TEST(HardAttention, SamplesFollowAlpha) {
  Tensor alpha = Tensor::from({1, 4}, {0.1, 0.0, 0.6, 0.3}, DType::f64);
  Rng rng(9);
  std::vector<int> counts(4, 0);
  const int n = 20000;
  for (int i = 0; i < n; ++i) ++counts[static_cast<std::size_t>(sample_positions(alpha, rng)[0])];
  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(counts[0] / double(n), 0.1, 0.01);
  EXPECT_NEAR(counts[2] / double(n), 0.6, 0.015);
  EXPECT_NEAR(counts[3] / double(n), 0.3, 0.015);
  EXPECT_EQ(argmax_positions(alpha), std::vector<std::int64_t>{2});
}

TEST(HardAttention, GatherAndLogProbGradients) {
  Var H = random_var({2, 3, 4}, 1);
  std::vector<std::int64_t> idx{2, 0};
  EXPECT_TRUE(gradcheck([&] { return gather_positions(H, idx); }, {H}));
  Var alpha = random_var({2, 3}, 2, 0.1, 1.0);  // unnormalised rows are normalised
  EXPECT_TRUE(gradcheck([&] { return attention_log_prob(alpha, idx); }, {alpha}));
  EXPECT_THROW(gather_positions(H, std::vector<std::int64_t>{3, 0}), Error);
}

TEST(HardAttention, TrainingSamplesAndLogProbReachesTheScores) {
  Rng rng(3);
  AttentionConfig c = config("mlp");
  c.hard = true;
  Attention att(c, rng, DType::f64);
  Var q = random_var({2, 4}, 7), H = random_var({2, 4, 3}, 8);
  const std::vector<std::int64_t> len{4, 2};
  Rng sampler(11);
  Attention::Output o = att.forward(q, H, att.keys(H), len, &sampler);
  ASSERT_EQ(o.index.size(), 2u);
  EXPECT_LT(o.index[1], 2);  // never a padded position
  for (std::int64_t b = 0; b < 2; ++b) {
    for (std::int64_t k = 0; k < 3; ++k)
      EXPECT_EQ(o.context.value().at({b, k}), H.value().at({b, o.index[b], k}));
    EXPECT_NEAR(o.log_prob.value().at({b}), std::log(o.alpha.value().at({b, o.index[b]})), 1e-12);
  }
  // REINFORCE: d log pi / d params, checked with the sample held fixed.
  std::vector<std::int64_t> idx = o.index;
  std::vector<Var> in = att.parameters();
  in.push_back(q);
  EXPECT_TRUE(gradcheck(
      [&] {
        Attention::Output r = att.forward(q, H, att.keys(H), len, &sampler);
        return attention_log_prob(r.alpha, idx);
      },
      in));
  EXPECT_THROW(att.forward(q, H, att.keys(H), len), Error);  // training needs an Rng
}

TEST(HardAttention, EvalTakesArgmaxOrExpectation) {
  Rng rng(3);
  AttentionConfig c = config("general");
  c.hard = true;
  Attention att(c, rng, DType::f64);
  att.eval();
  Var q = random_var({2, 4}, 7), H = random_var({2, 4, 3}, 8);
  const std::vector<std::int64_t> len{4, 3};
  NoGradGuard g;
  Attention::Output o = att.forward(q, H, att.keys(H), len);
  EXPECT_EQ(o.index, argmax_positions(o.alpha.value()));
  EXPECT_FALSE(o.log_prob.defined());
  for (std::int64_t k = 0; k < 3; ++k)
    EXPECT_EQ(o.context.value().at({1, k}), H.value().at({1, o.index[1], k}));

  c.hard_eval_expectation = true;
  Rng rng2(3);
  Attention soft_eval(c, rng2, DType::f64);
  soft_eval.eval();
  Attention::Output e = soft_eval.forward(q, H, soft_eval.keys(H), len);
  c.hard = false;
  Rng rng3(3);
  Attention soft(c, rng3, DType::f64);
  EXPECT_TRUE(all_close(e.context.value(), soft.forward(q, H, soft.keys(H), len).context.value()));
}

}  // namespace
}  // namespace heed
