#pragma once
// Attention: the score functions of docs/MODELS.md#attention-scores as one module, soft or hard
// (#hard-attention), global or Luong local-p (#local-p-attention). The score's registry entry
// (autograd/attention_score.h) names its parameters as the PyTorch reference does
// (tools/reference/attention.py), e.g. W_q.weight, U_h.weight, U_h.bias, v.weight for mlp;
// local-p adds W_p.weight, v_p.weight. The location features of an additive score
// (#location-aware-attention, #coverage) add F.weight (k, 1, r) and U_f.weight (A, k) for the
// previous weights, w_c.weight (A, 1) for the coverage vector: feature_term builds the key term
// a step adds inside the tanh; which weights it reads is the decoder's state (models/).
//
//   Attention att(cfg, rng);
//   Var K = att.keys(H);                               // once per batch
//   for each step t: auto [c, alpha, ...] = att.forward(q_t, H, K, lengths);
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "heed/autograd/attention_op.h"
#include "heed/base/random.h"
#include "heed/nn/module.h"

namespace heed {

struct AttentionConfig {
  AttentionScore score = AttentionScore::mlp;
  std::int64_t query_dim = 0;       // dq
  std::int64_t key_dim = 0;         // dk (annotation size)
  std::int64_t attn_dim = 0;        // A for concat and mlp; 0 means query_dim
  std::int64_t max_src_len = 100;   // scores with a weight row per position (location) only
  bool local_p = false;             // Luong local-p with half-width `window`
  std::int64_t window = 0;          // D >= 1 when local_p
  bool hard = false;                // stochastic: c_t = h_j, j ~ alpha_t
  bool hard_eval_expectation = false;  // hard, not training: soft context (else argmax)
  // Location features (additive scores only): k filters of odd width r over the previous
  // step's weights (k = 0: none), and the coverage vector.
  std::int64_t location_filters = 0;
  std::int64_t location_width = 0;
  bool coverage = false;
  bool has_features() const { return location_filters > 0 || coverage; }
};

// A weight (out, in) and optional bias (out), PyTorch nn.Linear's layout and initialisation.
class AttentionProjection : public Module {
 public:
  AttentionProjection(std::int64_t in, std::int64_t out, bool bias, Rng& rng, DType dtype);
  Var weight;
  Var bias;
};

// k filters of width r over one channel, PyTorch nn.Conv1d(1, k, r, bias=False)'s weight
// (k, 1, r) and initialisation.
class AttentionFilters : public Module {
 public:
  AttentionFilters(std::int64_t filters, std::int64_t width, Rng& rng, DType dtype);
  Var weight;
};

class Attention : public Module {
 public:
  Attention(const AttentionConfig& config, Rng& rng, DType dtype = DType::f32);

  // The per-batch key precomputation (one GEMM over B*m rows) from H (B, m, dk), as the
  // score's entry says (ScoreKeys): H itself for dot/scaled_dot, W_a H for general,
  // W_a[:, dq:] H for concat, U_h H + b for mlp, undefined for location (it reads no keys).
  // precision: the products' (autograd/matmul.h).
  Var keys(const Var& H, kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32) const;

  struct Output {
    Var context;                      // (B, dk): soft context, or h_j for hard attention
    Var alpha;                        // (B, m)
    std::vector<std::int64_t> index;  // hard attention: the chosen position per row
    Var log_prob;                     // hard attention while training: log pi(j) (B)
    Var entropy;                      // hard attention while training: H(pi) (B)
  };
  // One step for queries q (B, dq); lengths[b] is row b's real source length. Hard
  // attention in training mode samples from rng (required then), unless expectation: then the
  // step is soft attention's (Xu et al.'s mixing, training.hard_soft_mix).
  // extras: the step's key term (feature_term) and window, as attention_step takes them.
  Output forward(const Var& q, const Var& H, const Var& K, std::span<const std::int64_t> lengths,
                 Rng* rng = nullptr,
                 kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32,
                 bool expectation = false, const AttentionStepExtras& extras = {}) const;

  // The key term of the location features (B, m, A): U_f (F * alpha_prev)_j with location
  // filters, plus w_c c_j with coverage, from the previous step's weights alpha_prev
  // (B, m) and the coverage vector (B, m), each read only when its feature is on; undefined
  // when neither is.
  Var feature_term(const Var& alpha_prev, const Var& coverage,
                   kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32) const;

  const AttentionConfig& config() const { return config_; }
  AttentionScore score() const { return score_; }
  // The score's parameters, for fused ops that run the attention themselves.
  const AttentionWeights& weights() const { return weights_; }

 private:
  const AttentionProjection& score_param(int i) const;  // the entry's params[i]

  AttentionConfig config_;
  AttentionScore score_;
  const ScoreSpec* spec_;
  std::vector<std::unique_ptr<AttentionProjection>> score_params_;  // the entry's params
  std::unique_ptr<AttentionProjection> W_p_, v_p_;
  std::unique_ptr<AttentionFilters> F_;                  // location filters
  std::unique_ptr<AttentionProjection> U_f_, w_c_;      // location and coverage projections
  AttentionWeights weights_;
};

}  // namespace heed
