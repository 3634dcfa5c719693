#pragma once
// Attention on the tape: one fused op per decoder step (scores, mask, softmax, optional
// local-p, context; fused backward), plus the per-batch key precomputation for concat.
// The mathematics: docs/MODELS.md#attention-scores, #masking-and-softmax, #local-p-attention.
#include <cstdint>
#include <span>

#include "heed/autograd/attention_score.h"
#include "heed/autograd/var.h"
#include "heed/kernels/precision.h"

namespace heed {

// The score's parameters, PyTorch layouts, undefined where a score has none (its entry in
// attention_score.cpp says which projection is which):
//   W: the query-side weight; the tanh form multiplies q by its first dq columns (W is (A, dq)
//      or wider, as concat's W_a (A, dq + dk)), the logits form by all of it ((max_src_len, dq):
//      rows [0, m) score positions 1..m)
//   v: the tanh form's (1, A)
//   local-p: W_p (dq, dq), v_p (1, dq), window = D >= 1 (0 means global attention)
struct AttentionWeights {
  Var W;
  Var v;
  Var W_p;
  Var v_p;
  double window = 0;
};

// What one step may read beyond the score's own inputs (docs/MODELS.md#location-aware-attention,
// #windowed-decoding). Which features make the key term is the caller's (nn/attention_layer.h).
struct AttentionStepExtras {
  // The tanh form only: F (B, m, kd), added to the keys inside the tanh at this step:
  // s_j = v . tanh(K_j + F_j + W q); undefined: none.
  Var key_term;
  // Row b attends over the positions [from[b], to[b]) only (alpha exactly 0 elsewhere; a window
  // holding none of the row's real positions leaves the row whole); empty: every position.
  std::span<const std::int64_t> from, to;
};

struct AttentionResult {
  Var context;  // (B, dk)
  Var alpha;    // (B, m); exactly 0 on padding and outside a local window
};

// One attention step for queries q (B, dq) over values H (B, m, dk) with the keys K computed
// once per batch as the score's entry says (undefined for the logits form), e.g. H itself for
// dot, W_a H for general, U_h H + b for mlp. Checks the sizes and weights by the score's entry.
// lengths[b] in [1, m] is row b's source length; positions past it are padding.
AttentionResult attention_step(AttentionScore score, const Var& q, const Var& K, const Var& H,
                               std::span<const std::int64_t> lengths,
                               const AttentionWeights& weights,
                               kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32,
                               const AttentionStepExtras& extras = {});

// y = x W[:, col : col + in]^T with in = x's last dimension: a linear map through a block of
// W's columns (the key half of concat's W_a), gradient flowing into that block only.
// precision: as for linear (matmul.h); W.packed(), when set, runs the forward product.
Var linear_columns(const Var& x, const Var& W, std::int64_t col,
                   kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32);

}  // namespace heed
