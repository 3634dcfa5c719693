#pragma once
// Attention: the score functions of docs/MODELS.md#attention-scores as one module, soft or hard
// (#hard-attention), global or Luong local-p (#local-p-attention). The score's registry entry
// (autograd/attention_score.h) names its parameters as the PyTorch reference does
// (tools/reference/attention.py), e.g. W_q.weight, U_h.weight, U_h.bias, v.weight for mlp;
// local-p adds W_p.weight, v_p.weight.
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
};

// A weight (out, in) and optional bias (out), PyTorch nn.Linear's layout and initialisation.
class AttentionProjection : public Module {
 public:
  AttentionProjection(std::int64_t in, std::int64_t out, bool bias, Rng& rng, DType dtype);
  Var weight;
  Var bias;
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
  Output forward(const Var& q, const Var& H, const Var& K, std::span<const std::int64_t> lengths,
                 Rng* rng = nullptr,
                 kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32,
                 bool expectation = false) const;

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
  AttentionWeights weights_;
};

}  // namespace heed
