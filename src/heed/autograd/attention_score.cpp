#include "heed/autograd/attention_score.h"

#include <iterator>

#include "heed/autograd/attention_op.h"

namespace heed {
namespace {

using kernels::ScoreKind;

// dot, scaled_dot, general: q . K_j needs keys of the query's size.
void check_same_size(std::string_view name, const ScoreStepSizes& s, const AttentionWeights&,
                     DType) {
  HEED_CHECK(s.kd == s.dq, "attention ", name, ": key size ", s.kd, " differs from query size ",
             s.dq);
}

void check_mlp(std::string_view, const ScoreStepSizes& s, const AttentionWeights& w, DType dt) {
  check_attention_param(w.W, Shape{s.kd, s.dq}, "W_q.weight", dt);
  check_attention_param(w.v, Shape{1, s.kd}, "v.weight", dt);
}

void check_concat(std::string_view, const ScoreStepSizes& s, const AttentionWeights& w,
                  DType dt) {
  HEED_CHECK(
      w.W.defined() && w.W.value().ndim() == 2 && w.W.dim(0) == s.kd && w.W.dim(1) >= s.dq,
      "attention concat: W_a must be (A, dq + dk) with A = ", s.kd);
  check_attention_param(w.W, w.W.shape(), "W_a.weight", dt);
  check_attention_param(w.v, Shape{1, s.kd}, "v_a.weight", dt);
}

void check_location(std::string_view, const ScoreStepSizes& s, const AttentionWeights& w,
                    DType dt) {
  HEED_CHECK(w.W.defined() && w.W.value().ndim() == 2 && w.W.dim(1) == s.dq,
             "attention location: W_a must be (max_src_len, dq) with dq = ", s.dq);
  HEED_CHECK(s.m <= w.W.dim(0), "attention location: source length ", s.m, " > max_src_len ",
             w.W.dim(0));
  check_attention_param(w.W, w.W.shape(), "W_a.weight", dt);
}

using D = ScoreDim;
constexpr ScoreParam kGeneralParams[] = {{"W_a", D::key, D::query}};
constexpr ScoreParam kConcatParams[] = {{"W_a", D::query_plus_key, D::attn},
                                        {"v_a", D::attn, D::one}};
constexpr ScoreParam kMlpParams[] = {
    {"W_q", D::query, D::attn}, {"U_h", D::key, D::attn, /*bias=*/true}, {"v", D::attn, D::one}};
constexpr ScoreParam kLocationParams[] = {{"W_a", D::query, D::max_src_len}};

// The registry, in the enum's order (score_spec indexes it).
constexpr ScoreSpec kScores[] = {
    {.score = AttentionScore::dot,  // q . h_j
     .kind = ScoreKind::dot,
     .keys = ScoreKeys::values,
     .same_size = true,
     .fused = true,
     .check = check_same_size},
    {.score = AttentionScore::scaled_dot,  // q . h_j / sqrt(dq)
     .kind = ScoreKind::dot,
     .keys = ScoreKeys::values,
     .scaled = true,
     .same_size = true,
     .fused = true,
     .check = check_same_size},
    {.score = AttentionScore::general,  // q^T (W_a h_j)
     .kind = ScoreKind::dot,
     .params = kGeneralParams,
     .keys = ScoreKeys::linear,
     .key_param = 0,
     .weight_param = 0,
     .fused = true,
     .check = check_same_size},
    {.score = AttentionScore::concat,  // v_a^T tanh(W_a [q; h_j])
     .kind = ScoreKind::tanh,
     .params = kConcatParams,
     .keys = ScoreKeys::key_columns,
     .key_param = 0,
     .weight_param = 0,
     .vector_param = 1,
     .check = check_concat},
    {.score = AttentionScore::mlp,  // v^T tanh(W_q q + U_h h_j + b)
     .kind = ScoreKind::tanh,
     .params = kMlpParams,
     .keys = ScoreKeys::linear,
     .key_param = 1,
     .weight_param = 0,
     .vector_param = 2,
     .check = check_mlp},
    {.score = AttentionScore::location,  // (W_a q)_j
     .kind = ScoreKind::logits,
     .params = kLocationParams,
     .keys = ScoreKeys::none,
     .weight_param = 0,
     .per_position = true,
     .check = check_location},
};

// Checked here, at compile time: one entry per value that has a name, in the enum's order.
constexpr bool one_entry_per_score_in_order() {
  std::size_t values = 0;
  for (std::size_t i = 0; i < std::size(kAttentionScoreNames); ++i) {
    bool alias = false;
    for (std::size_t j = 0; j < i; ++j)
      alias = alias || kAttentionScoreNames[j].value == kAttentionScoreNames[i].value;
    values += !alias;
  }
  if (values != std::size(kScores)) return false;
  for (std::size_t i = 0; i < std::size(kScores); ++i)
    if (static_cast<std::size_t>(kScores[i].score) != i || kScores[i].check == nullptr)
      return false;
  return true;
}
static_assert(one_entry_per_score_in_order(),
              "kScores: one entry per AttentionScore, in the enum's order, each with its check");

}  // namespace

std::int64_t ScoreSizes::operator()(ScoreDim d) const {
  switch (d) {
    case ScoreDim::one: return 1;
    case ScoreDim::query: return query;
    case ScoreDim::key: return key;
    case ScoreDim::attn: return attn;
    case ScoreDim::query_plus_key: return query + key;
    case ScoreDim::max_src_len: return max_src_len;
  }
  return 0;  // not reached: the switch names every dimension
}

std::span<const ScoreSpec> attention_scores() { return kScores; }

const ScoreSpec& score_spec(AttentionScore score) {
  const auto i = static_cast<std::size_t>(score);
  HEED_CHECK(i < std::size(kScores) && kScores[i].score == score,
             "attention: score ", static_cast<int>(score), " has no registry entry");
  return kScores[i];
}

void check_attention_param(const Var& p, const Shape& expected, const char* what, DType dtype) {
  HEED_CHECK(p.defined(), "attention: the score needs parameter ", what);
  check_shape(p.value(), expected, what);
  HEED_CHECK(p.value().is_contiguous() && p.dtype() == dtype, "attention: ", what,
             " must be contiguous and of the query's dtype");
}

}  // namespace heed
