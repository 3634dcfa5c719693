#include "heed/nn/attention_layer.h"

#include <cmath>
#include <memory>
#include <string_view>

#include "heed/autograd/attention_hard.h"
#include "heed/autograd/conv1d_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/index.h"
#include "heed/autograd/matmul.h"

namespace heed {

AttentionProjection::AttentionProjection(std::int64_t in, std::int64_t out, bool with_bias,
                                         Rng& rng, DType dtype) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  weight = register_parameter("weight", init_uniform({out, in}, bound, rng, dtype));
  if (with_bias) bias = register_parameter("bias", init_uniform({out}, bound, rng, dtype));
}

AttentionFilters::AttentionFilters(std::int64_t filters, std::int64_t width, Rng& rng,
                                   DType dtype) {
  const double bound = 1.0 / std::sqrt(static_cast<double>(width));  // fan_in = 1 x width
  weight = register_parameter("weight", init_uniform({filters, 1, width}, bound, rng, dtype));
}

Attention::Attention(const AttentionConfig& config, Rng& rng, DType dtype)
    : config_(config), score_(config.score), spec_(&score_spec(config.score)) {
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
  const std::string_view name = attention_score_name(score_);
  if (spec_->same_size)
    HEED_CHECK(dq == dk, "attention ", name, ": needs query_dim == key_dim, got ", dq, " and ",
               dk);
  if (spec_->per_position)
    HEED_CHECK(config.max_src_len >= 1, "attention ", name, ": max_src_len must be >= 1");
  const ScoreSizes sizes{dq, dk, A, config.max_src_len};
  score_params_.resize(spec_->params.size());
  for (std::size_t i = 0; i < spec_->params.size(); ++i) {
    const ScoreParam& p = spec_->params[i];
    make(score_params_[i], p.module, sizes(p.in), sizes(p.out), p.bias);
  }
  if (spec_->weight_param >= 0) weights_.W = score_param(spec_->weight_param).weight;
  if (spec_->vector_param >= 0) weights_.v = score_param(spec_->vector_param).weight;
  if (config.local_p) {
    HEED_CHECK(config.window >= 1, "attention local_p: window D must be >= 1, got ",
               config.window);
    make(W_p_, "W_p", dq, dq, false);
    make(v_p_, "v_p", dq, 1, false);
    weights_.W_p = W_p_->weight;
    weights_.v_p = v_p_->weight;
    weights_.window = static_cast<double>(config.window);
  }
  if (config.has_features())
    HEED_CHECK(spec_->kind == kernels::ScoreKind::tanh, "attention ", name,
               ": location features and coverage enter the additive scores only (mlp, concat)");
  if (config.location_filters > 0) {
    HEED_CHECK(config.location_width >= 1 && config.location_width % 2 == 1,
               "attention: the location filters' width must be odd and positive, got ",
               config.location_width);
    F_ = std::make_unique<AttentionFilters>(config.location_filters, config.location_width, rng,
                                            dtype);
    register_module("F", *F_);
    make(U_f_, "U_f", config.location_filters, A, false);
  }
  if (config.coverage) make(w_c_, "w_c", 1, A, false);
}

Var Attention::feature_term(const Var& alpha_prev, const Var& coverage,
                            kernels::MatmulPrecision precision) const {
  Var term;
  if (F_) {
    HEED_CHECK(alpha_prev.defined() && alpha_prev.value().ndim() == 2,
               "attention: location features need the previous weights (B, m)");
    term = linear(conv1d_same(alpha_prev, F_->weight), U_f_->weight, Var(), precision);
  }
  if (w_c_) {
    HEED_CHECK(coverage.defined() && coverage.value().ndim() == 2,
               "attention: coverage needs the coverage vector (B, m)");
    Var c = linear(reshape(coverage, {coverage.dim(0), coverage.dim(1), 1}), w_c_->weight, Var(),
                   precision);
    term = term.defined() ? add(term, c) : c;
  }
  return term;
}

const AttentionProjection& Attention::score_param(int i) const {
  return *score_params_[static_cast<std::size_t>(i)];
}

Var Attention::keys(const Var& H, kernels::MatmulPrecision precision) const {
  HEED_CHECK(H.value().ndim() == 3 && H.dim(2) == config_.key_dim,
             "attention keys: annotations must be (B, m, ", config_.key_dim, "), got ",
             H.shape().str());
  switch (spec_->keys) {
    case ScoreKeys::values:
      return H;
    case ScoreKeys::linear: {
      const AttentionProjection& P = score_param(spec_->key_param);
      return linear(H, P.weight, P.bias, precision);
    }
    case ScoreKeys::key_columns:
      return linear_columns(H, score_param(spec_->key_param).weight, config_.query_dim,
                            precision);
    case ScoreKeys::none:
      return Var();
  }
  return Var();  // not reached: the switch names every form
}

Attention::Output Attention::forward(const Var& q, const Var& H, const Var& K,
                                     std::span<const std::int64_t> lengths, Rng* rng,
                                     kernels::MatmulPrecision precision, bool expectation,
                                     const AttentionStepExtras& extras) const {
  HEED_CHECK(q.value().ndim() == 2 && q.dim(1) == config_.query_dim,
             "attention: query must be (B, ", config_.query_dim, "), got ", q.shape().str());
  HEED_CHECK(H.value().ndim() == 3 && H.dim(2) == config_.key_dim,
             "attention: annotations must be (B, m, ", config_.key_dim, "), got ",
             H.shape().str());
  if (spec_->per_position)
    HEED_CHECK(H.dim(1) <= config_.max_src_len, "attention ", attention_score_name(score_),
               ": source length ", H.dim(1), " > max_src_len ", config_.max_src_len);
  AttentionResult r = attention_step(score_, q, K, H, lengths, weights_, precision, extras);
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
