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
