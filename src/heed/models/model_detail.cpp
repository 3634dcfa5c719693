#include "heed/models/model_detail.h"

#include <cstring>
#include <string>
#include <string_view>

#include "heed/autograd/dropout_op.h"
#include "heed/autograd/index.h"

namespace heed::model_detail {

std::vector<std::int32_t> to_int32(const std::vector<std::int64_t>& lengths) {
  return std::vector<std::int32_t>(lengths.begin(), lengths.end());
}

Var maybe_dropout(const Var& x, const RunMode& mode) {
  if (!mode.training || mode.dropout <= 0) return x;
  HEED_CHECK(mode.rng != nullptr, "model: dropout in training needs an Rng (call set_rng first)");
  return dropout(x, mode.dropout, *mode.rng, true);
}

void check_target(const TokenBatch& tgt_in, std::int64_t batch, std::int64_t vocab,
                  const char* model) {
  HEED_CHECK(tgt_in.batch == batch, model, ": target batch has ", tgt_in.batch,
             " rows, source batch ", batch);
  HEED_CHECK(tgt_in.len >= 1, model, ": empty target batch");
  HEED_CHECK(static_cast<std::int64_t>(tgt_in.ids.size()) == tgt_in.batch * tgt_in.len, model,
             ": ", tgt_in.ids.size(), " target ids for a ", tgt_in.batch, " x ", tgt_in.len,
             " batch");
  for (std::size_t i = 0; i < tgt_in.ids.size(); ++i)
    HEED_CHECK(tgt_in.ids[i] >= 0 && tgt_in.ids[i] < vocab, model, ": target id ",
               tgt_in.ids[i], " is outside the vocabulary of ", vocab);
}

void check_step(std::span<const std::int32_t> y_prev, const DecoderState& state,
                std::size_t parts, const Encoded& enc, std::int64_t vocab, const char* model) {
  const auto B = static_cast<std::int64_t>(y_prev.size());
  HEED_CHECK(state.parts.size() == parts, model, ": decoder state has ", state.parts.size(),
             " parts, expected ", parts, " (use initial_state)");
  for (const Var& p : state.parts)
    HEED_CHECK(p.defined() && p.dim(0) == B, model, ": decoder state rows do not match the ", B,
               " previous tokens");
  HEED_CHECK(static_cast<std::int64_t>(enc.lengths.size()) == B, model, ": encoding has ",
             enc.lengths.size(), " rows, ", B, " previous tokens given");
  for (std::int32_t y : y_prev)
    HEED_CHECK(y >= 0 && y < vocab, model, ": previous token ", y,
               " is outside the vocabulary of ", vocab);
}

void check_score(const ModelConfig& c) {
  const ScoreSpec& spec = score_spec(c.score);
  if (spec.same_size) {
    // The scores without a size constraint, as the way out: "general, concat or mlp".
    std::vector<std::string_view> free;
    for (const ScoreSpec& s : attention_scores())
      if (!s.same_size && !s.per_position) free.push_back(attention_score_name(s.score));
    std::string others;
    for (std::size_t i = 0; i < free.size(); ++i)
      others += std::string(i == 0 ? "" : i + 1 == free.size() ? " or " : ", ") +
                std::string(free[i]);
    HEED_CHECK(c.annotation_dim() == c.dec_hidden, "model.score ", enum_name(c.score),
               " needs the annotation size (enc_hidden x directions = ", c.annotation_dim(),
               ") to equal dec_hidden (", c.dec_hidden, "); use ", others, " otherwise");
  }
  if (spec.per_position)
    HEED_CHECK(c.max_src_len >= 1, "model.max_src_len must be at least 1, got ", c.max_src_len);
}

void check_additive_score(const ModelConfig& c, const char* uses, const char* hint) {
  HEED_CHECK(c.score == AttentionScore::mlp, "model.score: ", uses, ", got '", enum_name(c.score),
             "'", hint);
}

std::int64_t score_max_length(const ModelConfig& c) {
  return score_spec(c.score).per_position ? c.max_src_len : 0;
}

void set_attention_mode(AttentionConfig& a, const ModelConfig& config) {
  a.hard = config.attention_mode == AttentionMode::hard;
  a.hard_eval_expectation = config.hard_eval == HardEval::expectation;
}

Attention::Output attend(const Attention& attention, const Var& q, const Encoded& enc,
                         const RunMode& mode) {
  Attention::Output att = attention.forward(q, enc.annotations, enc.keys, enc.lengths,
                                            mode.training ? mode.rng : nullptr, mode.precision,
                                            mode.hard_expectation);
  if (mode.trace && att.log_prob.defined()) {
    mode.trace->log_prob.push_back(att.log_prob);
    mode.trace->entropy.push_back(att.entropy);
  }
  return att;
}

Tensor alloc_alphas(std::int64_t B, std::int64_t n, std::int64_t m, DType dtype) {
  return Tensor::zeros({B, n, m}, dtype);
}

void store_alpha(Tensor& alphas, const Var& alpha, std::int64_t t) {
  alphas.select(1, t).copy_from(alpha.value());
}

Var final_state(const Var& h_n, int layer, int direction, int directions) {
  return select(h_n, 0, static_cast<std::int64_t>(layer) * directions + direction);
}

}  // namespace heed::model_detail
