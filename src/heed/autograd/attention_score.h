#pragma once
// The attention scores (docs/MODELS.md#attention-scores) as one registry: a score is its value
// and name below plus one entry in attention_score.cpp, which says all that the layers above
// need to know of it: its kernel form, its parameters under the PyTorch reference's names and
// their shapes, how its keys are computed once per batch, its size constraints and the checks
// of its weights, and whether the fused Luong decoder runs it. attention_step (autograd), the
// Attention module (nn), the models' checks and sizes and bench's FLOP counts read the entry;
// none of them names a particular score.
#include <cstdint>
#include <span>
#include <string_view>

#include "heed/autograd/var.h"
#include "heed/base/enum_names.h"
#include "heed/kernels/attention.h"

namespace heed {

enum class AttentionScore { dot, scaled_dot, general, concat, mlp, location };
inline constexpr EnumName<AttentionScore> kAttentionScoreNames[] = {
    {AttentionScore::dot, "dot"},        {AttentionScore::scaled_dot, "scaled_dot"},
    {AttentionScore::general, "general"}, {AttentionScore::concat, "concat"},
    {AttentionScore::mlp, "mlp"},        {AttentionScore::mlp, "additive"},
    {AttentionScore::location, "location"}};
constexpr std::span<const EnumName<AttentionScore>> enum_names(AttentionScore) {
  return kAttentionScoreNames;
}

// The score named name ("additive" is mlp); anything else throws heed::Error.
inline AttentionScore attention_score_from_name(std::string_view name) {
  return parse_enum<AttentionScore>(name, "attention score");
}
inline std::string_view attention_score_name(AttentionScore score) { return enum_name(score); }

// Whether a score has the tanh (additive) kernel form, the one the location features enter:
// mlp and concat. Header-only for the config reader, which checks model.location_filters and
// model.coverage without the score registry; a test holds it to the registry's `kind`.
constexpr bool has_tanh_form(AttentionScore score) {
  return score == AttentionScore::mlp || score == AttentionScore::concat;
}

// The sizes an attention is built from; a parameter's dimensions name them.
enum class ScoreDim { one, query, key, attn, query_plus_key, max_src_len };
struct ScoreSizes {
  std::int64_t query = 0;        // dq
  std::int64_t key = 0;          // dk, the annotation size
  std::int64_t attn = 0;         // A
  std::int64_t max_src_len = 0;  // the longest source (scores with a weight row per position)
  std::int64_t operator()(ScoreDim d) const;
};

// One projection of a score, PyTorch's nn.Linear(in, out): <module>.weight (out, in) and, with
// bias, <module>.bias (out).
struct ScoreParam {
  const char* module;
  ScoreDim in, out;
  bool bias = false;
};

// How the keys are computed once per batch from the values H (B, m, dk).
enum class ScoreKeys {
  values,       // K = H
  linear,       // K = H P^T (+ P's bias), P the key parameter
  key_columns,  // K = H P[:, dq:]^T, the key half of the key parameter
  none,         // no keys: the score reads only the query (kernel form logits)
};

// What attention_step sees: the query (B, dq), the keys (B, m, kd) and the values (B, m, dv).
struct ScoreStepSizes {
  std::int64_t m = 0, dq = 0, kd = 0, dv = 0;
};

struct AttentionWeights;  // attention_op.h

struct ScoreSpec {
  AttentionScore score;
  // The kernel form (kernels/attention.h). It fixes the query-side product attention_step
  // runs: none for dot (q itself), q W[:, :dq]^T for tanh, q W^T for logits.
  kernels::ScoreKind kind;
  std::span<const ScoreParam> params = {};  // in the reference's order of random draws
  ScoreKeys keys;
  int key_param = -1;     // the params index the keys read
  int weight_param = -1;  // the params index of AttentionWeights::W
  int vector_param = -1;  // the params index of AttentionWeights::v
  bool scaled = false;    // scores divided by sqrt(dq)
  bool same_size = false;     // q . h_j: the query size must equal the annotation size
  bool per_position = false;  // a weight row per source position: sources up to max_src_len
  bool fused = false;         // fused/lstm_dot_decoder runs it (LuongDecoder::accelerated)
  // attention_step's checks of the weights and sizes, with the score's messages.
  void (*check)(std::string_view name, const ScoreStepSizes& s, const AttentionWeights& w,
                DType dtype) = nullptr;
};

// Every score, one entry each, in the enum's order.
std::span<const ScoreSpec> attention_scores();
const ScoreSpec& score_spec(AttentionScore score);

// Checks a parameter of the attention: defined, of shape expected, contiguous, of dtype.
void check_attention_param(const Var& p, const Shape& expected, const char* what, DType dtype);

}  // namespace heed
