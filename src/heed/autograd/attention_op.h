#pragma once
// Attention on the tape: one fused op per decoder step (scores, mask, softmax, optional
// local-p, context; fused backward), plus the per-batch key precomputation for concat.
// The mathematics: docs/MODELS.md#attention-scores, #masking-and-softmax, #local-p-attention.
#include <cstdint>
#include <span>
#include <string_view>

#include "heed/autograd/var.h"
#include "heed/base/enum_names.h"
#include "heed/kernels/precision.h"

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

// The score's parameters (undefined where a score does not use them), PyTorch layouts:
//   mlp:      W = W_q.weight (A, dq),        v = v.weight (1, A)
//   concat:   W = W_a.weight (A, dq + dk),   v = v_a.weight (1, A); the query half W[:, :dq]
//   location: W = W_a.weight (max_src_len, dq); rows [0, m) score positions 1..m
//   local-p:  W_p (dq, dq), v_p (1, dq), window = D >= 1 (0 means global attention)
struct AttentionWeights {
  Var W;
  Var v;
  Var W_p;
  Var v_p;
  double window = 0;
};

struct AttentionResult {
  Var context;  // (B, dk)
  Var alpha;    // (B, m); exactly 0 on padding and outside a local window
};

// One attention step for queries q (B, dq) over values H (B, m, dk) with precomputed keys K:
//   dot, scaled_dot: K = H (dq == dk);  general: K = W_a H (B, m, dq);
//   concat: K = W_a[:, dq:] H (B, m, A);  mlp: K = U_h H + b (B, m, A);  location: K unused.
// lengths[b] in [1, m] is row b's source length; positions past it are padding.
AttentionResult attention_step(AttentionScore score, const Var& q, const Var& K, const Var& H,
                               std::span<const std::int64_t> lengths,
                               const AttentionWeights& weights,
                               kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32);

// y = x W[:, col : col + in]^T with in = x's last dimension: a linear map through a block of
// W's columns (the key half of concat's W_a), gradient flowing into that block only.
// precision: as for linear (matmul.h); W.packed(), when set, runs the forward product.
Var linear_columns(const Var& x, const Var& W, std::int64_t col,
                   kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32);

}  // namespace heed
