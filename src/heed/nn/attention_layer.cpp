#include "heed/nn/attention_layer.h"

#include <cmath>
#include <memory>

#include "heed/autograd/attention_hard.h"
#include "heed/autograd/matmul.h"

namespace heed {

AttentionProjection::AttentionProjection(std::int64_t in, std::int64_t out, bool with_bias,
                                         Rng& rng, DType dtype) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  weight = register_parameter("weight", init_uniform({out, in}, bound, rng, dtype));
  if (with_bias) bias = register_parameter("bias", init_uniform({out}, bound, rng, dtype));
}

Attention::Attention(const AttentionConfig& config, Rng& rng, DType dtype)
    : config_(config), score_(config.score) {
  const std::int64_t dq = config.query_dim, dk = config.key_dim;
  HEED_CHECK(dq > 0 && dk > 0, "attention: query_dim and key_dim must be positive, got ", dq,
             " and ", dk);
  const std::int64_t A = config.attn_dim > 0 ? config.attn_dim : dq;
  config_.attn_dim = A;
  auto make = [&](std::unique_ptr<AttentionProjection>& slot, const char* name, std::int64_t in,
                  std::int64_t out, bool bias) {
    slot = std::make_unique<AttentionProjection>(in, out, bias, rng, dtype);
    register_module(name, *slot);
  };
  switch (score_) {
    case AttentionScore::dot:
    case AttentionScore::scaled_dot:
      HEED_CHECK(dq == dk, "attention ", enum_name(config.score), ": needs query_dim == key_dim, got ", dq,
                 " and ", dk);
      break;
    case AttentionScore::general:
      make(W_a_, "W_a", dk, dq, false);  // q^T (W_a h_j)
      weights_.W = W_a_->weight;
      break;
    case AttentionScore::concat:
      make(W_a_, "W_a", dq + dk, A, false);
      make(v_a_, "v_a", A, 1, false);
      weights_.W = W_a_->weight;
      weights_.v = v_a_->weight;
      break;
    case AttentionScore::mlp:
      make(W_q_, "W_q", dq, A, false);
      make(U_h_, "U_h", dk, A, true);  // U_h.bias is b
      make(v_, "v", A, 1, false);
      weights_.W = W_q_->weight;
      weights_.v = v_->weight;
      break;
    case AttentionScore::location:
      HEED_CHECK(config.max_src_len >= 1, "attention location: max_src_len must be >= 1");
      make(W_a_, "W_a", dq, config.max_src_len, false);
      weights_.W = W_a_->weight;
      break;
  }
  if (config.local_p) {
    HEED_CHECK(config.window >= 1, "attention local_p: window D must be >= 1, got ",
               config.window);
    make(W_p_, "W_p", dq, dq, false);
    make(v_p_, "v_p", dq, 1, false);
    weights_.W_p = W_p_->weight;
    weights_.v_p = v_p_->weight;
    weights_.window = static_cast<double>(config.window);
  }
}

Var Attention::keys(const Var& H, kernels::MatmulPrecision precision) const {
  HEED_CHECK(H.value().ndim() == 3 && H.dim(2) == config_.key_dim,
             "attention keys: annotations must be (B, m, ", config_.key_dim, "), got ",
             H.shape().str());
  switch (score_) {
    case AttentionScore::dot:
    case AttentionScore::scaled_dot:
      return H;
    case AttentionScore::general:
      return linear(H, W_a_->weight, Var(), precision);
    case AttentionScore::concat:
      return linear_columns(H, W_a_->weight, config_.query_dim, precision);
    case AttentionScore::mlp:
      return linear(H, U_h_->weight, U_h_->bias, precision);
    case AttentionScore::location:
      return Var();
  }
  return Var();
}

Attention::Output Attention::forward(const Var& q, const Var& H, const Var& K,
                                     std::span<const std::int64_t> lengths, Rng* rng,
                                     kernels::MatmulPrecision precision, bool expectation) const {
  HEED_CHECK(q.value().ndim() == 2 && q.dim(1) == config_.query_dim,
             "attention: query must be (B, ", config_.query_dim, "), got ", q.shape().str());
  HEED_CHECK(H.value().ndim() == 3 && H.dim(2) == config_.key_dim,
             "attention: annotations must be (B, m, ", config_.key_dim, "), got ",
             H.shape().str());
  if (score_ == AttentionScore::location)
    HEED_CHECK(H.dim(1) <= config_.max_src_len, "attention location: source length ", H.dim(1),
               " > max_src_len ", config_.max_src_len);
  AttentionResult r = attention_step(score_, q, K, H, lengths, weights_, precision);
  Output out{r.context, r.alpha, {}, Var(), Var()};
  if (!config_.hard || (training() && expectation)) return out;
  if (training()) {
    HEED_CHECK(rng != nullptr, "hard attention: training needs an Rng to sample positions");
    out.index = sample_positions(r.alpha.value(), *rng);
    out.log_prob = attention_log_prob(r.alpha, out.index);
    out.entropy = attention_entropy(r.alpha);
    out.context = gather_positions(H, out.index);
  } else {
    out.index = argmax_positions(r.alpha.value());
    if (!config_.hard_eval_expectation) out.context = gather_positions(H, out.index);
  }
  return out;
}

}  // namespace heed
