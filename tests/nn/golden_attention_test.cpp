// Every attention score against the PyTorch reference (tests/golden/attention_*): the
// reference's AdditiveAttention and GlobalAttention for dot, scaled_dot, general, concat,
// location, mlp and local-p. The weights are loaded by their PyTorch names; with
// mask = lengths, K = keys(H), (context, alpha) = forward(q, H, K), the outputs and the
// gradients of L = sum_X sum(out.X * seed.X) with respect to every parameter, q and H (which
// reaches H through the keys and through the context) must match within
// |a - ref| <= tol * (1 + max |ref|) per tensor, in float64 and in float32.
#include <gtest/gtest.h>

#include <cstdint>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "heed/nn/attention_layer.h"
#include "support/golden.h"

namespace heed {
namespace {
using testing::GoldenCase;

struct AttentionCase {
  std::string file;  // tests/golden/<file>.safetensors
  AttentionConfig config;
};
void PrintTo(const AttentionCase& c, std::ostream* os) { *os << c.file; }

AttentionConfig make_config(const std::string& score, std::int64_t dq, std::int64_t dk,
                            std::int64_t attn_dim = 0) {
  AttentionConfig c;
  c.score = parse_enum<AttentionScore>(score, "score");
  c.query_dim = dq;
  c.key_dim = dk;
  c.attn_dim = attn_dim;
  return c;
}

// The constructors of tools/make_goldens.py, one per golden file.
std::vector<AttentionCase> attention_cases() {
  AttentionConfig location = make_config("location", 4, 6);
  location.max_src_len = 7;
  AttentionConfig local = make_config("general", 4, 6);
  local.local_p = true;
  local.window = 2;
  return {
      {"attention_additive", make_config("mlp", 4, 6, 5)},  // AdditiveAttention(4, 6, 5)
      {"attention_dot", make_config("dot", 6, 6)},
      {"attention_scaled_dot", make_config("scaled_dot", 6, 6)},
      {"attention_general", make_config("general", 4, 6)},
      {"attention_concat", make_config("concat", 4, 6, 5)},
      {"attention_location", location},
      {"attention_mlp", make_config("mlp", 4, 6, 5)},
      {"attention_local_p_general", local},
  };
}

// A new registry entry without its golden file attention_<name> fails here (the goldens are the
// reference's; the naive loops of tests/autograd/attention_op_test.cpp are ours).
TEST(GoldenAttentionCases, EveryScoreHasAGolden) {
  std::size_t global = 0;  // cases of one score alone, global attention
  for (const AttentionCase& c : attention_cases()) global += !c.config.local_p;
  EXPECT_EQ(global, attention_scores().size() + 1) << "one case per score (mlp twice: additive)";
  for (const ScoreSpec& e : attention_scores()) {
    const std::string file = "attention_" + std::string(attention_score_name(e.score));
    bool found = false;
    for (const AttentionCase& c : attention_cases())
      found = found || (c.file == file && c.config.score == e.score && !c.config.local_p);
    EXPECT_TRUE(found) << "no golden case " << file;
  }
}

class GoldenAttention : public ::testing::TestWithParam<std::tuple<AttentionCase, DType>> {};

TEST_P(GoldenAttention, MatchesPyTorchReference) {
  const auto& [spec, dtype] = GetParam();
  GoldenCase c(spec.file, dtype);
  Rng rng(7);
  Attention att(spec.config, rng, dtype);
  att.eval();
  c.load(att);
  Var q = c.input("q"), H = c.input("H");
  const std::vector<std::int64_t> lengths = c.lengths();
  Var K = att.keys(H);
  Attention::Output r = att.forward(q, H, K, lengths);
  c.check({{"context", r.context}, {"alpha", r.alpha}});
}

INSTANTIATE_TEST_SUITE_P(Scores, GoldenAttention,
                         ::testing::Combine(::testing::ValuesIn(attention_cases()),
                                            ::testing::Values(DType::f64, DType::f32)),
                         [](const auto& info) {
                           return std::get<0>(info.param).file + "_" +
                                  std::string(dtype_name(std::get<1>(info.param)));
                         });

}  // namespace
}  // namespace heed
