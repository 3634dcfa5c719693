#pragma once
// Acceleration of the (GRU cell, additive score, attention before the step) decoder: the
// teacher-forced recurrence of models/bahdanau_decoder.h, all target steps as one op
// (docs/MODELS.md#bahdanau). For t = 1..n
//   e_t  = v . tanh(W_q s_{t-1} + K_j)         (K = U_h H + b, precomputed once per batch)
//   α_t  = softmax over each row's real source positions,  c_t = Σ_j α_tj H_j
//   s_t  = GRU([e(y_{t-1}); c_t], s_{t-1})
// It computes exactly what the composition attention_step → linear_columns → gru_step does
// step by step, restructured for speed:
//   - W_hh s_{t-1} and W_q s_{t-1} share their input: one GEMM per step with [W_hh; W_q];
//   - backward carries d s_{t-1} through both with one GEMM per step, and the weight
//     gradients of all steps (W_hh, b_hh, W_q, the context block of W_ih) are each one
//     GEMM over n·B rows after the loop, instead of n GEMMs of B rows.
#include <cstdint>
#include <span>

#include "heed/autograd/var.h"
#include "heed/kernels/precision.h"

namespace heed {

struct GruAdditiveWeights {
  Var w_ih;               // (3H, in): the context block is columns [ctx_col, ctx_col + dk)
  std::int64_t ctx_col = 0;
  Var w_hh;               // (3H, H)
  Var b_hh;               // (3H) or undefined
  Var W_q;                // (A, H): the attention's query projection (no bias)
  Var v;                  // (1, A)
  // Every product's precision (bf16 in mixed-precision training); frozen weights
  // (Var::packed()) run their forward products on the packed copy.
  kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32;
};

// X (B, n, 3H): the step inputs' other contribution, e(y_{t-1}) W_ih[:, :ctx_col]^T + b_ih;
// s0 (B, H); H (B, m, dk) the annotations; K (B, m, A) the keys; lengths[b] in [1, m].
// Returns (B, n, H + dk): row (b, t) holds [s_t | c_t]. alphas, if given, receives the
// attention weights (B, n, m) (no gradient flows through them).
Var gru_additive_decoder(const Var& X, const Var& s0, const Var& H, const Var& K,
                     std::span<const std::int64_t> lengths, const GruAdditiveWeights& w,
                     Tensor* alphas = nullptr);

}  // namespace heed
