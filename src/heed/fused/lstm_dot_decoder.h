#pragma once
// Acceleration of the (LSTM stack, dot-family score, attention after the step) decoder: the
// teacher-forced recurrence of models/luong_decoder.h, all target steps as one op
// (docs/MODELS.md#luong), for global attention with a dot-product score (dot, scaled_dot,
// general) and no dropout between the layers. For t = 1..n
//   input_t  = [e(y_{t-1}); h~_{t-1}] with input feeding (h~_0 = 0), else e(y_{t-1})
//   h_t      = LSTM stack (L layers) on input_t
//   α_t      = softmax over each row's real positions of scale · h_t^T K_j;  c_t = Σ_j α_tj H_j
//   h~_t     = tanh(W_c [c_t; h_t])
// It computes what the step ops (lstm_step, attention_step, linear) compute step by step,
// restructured for speed: the threads split the batch's rows and run every step for their
// rows with single-threaded GEMMs (no barrier per step), and the weight gradients of all
// steps are each one GEMM over n·B rows after the backward loop.
#include <cstdint>
#include <span>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/kernels/precision.h"

namespace heed {

struct LstmDotLayer {
  Var w_ih;  // (4H, in): layer 0 reads only its input-feeding block (columns [feed_col, +H))
  Var w_hh;  // (4H, H)
  Var b_ih;  // (4H) or undefined; layer 0's is part of X
  Var b_hh;  // (4H) or undefined
};

struct LstmDotWeights {
  std::vector<LstmDotLayer> layers;
  bool input_feed = true;
  std::int64_t feed_col = 0;  // layer 0's h~ block in w_ih (the embedding size)
  Var W_c;                    // (H, dk + H): h~ = tanh(W_c [c; h]), no bias
  double scale = 1.0;         // the score's factor (1 / sqrt(H) for scaled_dot)
  // Every product's precision (bf16 in mixed-precision training); frozen weights
  // (Var::packed()) run their forward products on the packed copy.
  kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32;
};

// X (B, n, 4H): layer 0's input from the embeddings, e(y_{t-1}) W_ih0[:, :feed_col]^T + b_ih0;
// h0, c0: each layer's initial state (B, H); H_ann (B, m, dk) the annotations; K (B, m, H) the
// keys (H_ann itself for dot scores, W_a H_ann for general); lengths[b] in [1, m].
// Returns h~ for every step, (B, n, H). alphas, if given, receives the attention weights
// (B, n, m) (no gradient flows through them).
Var lstm_dot_decoder(const Var& X, const std::vector<Var>& h0, const std::vector<Var>& c0,
                  const Var& H_ann, const Var& K, std::span<const std::int64_t> lengths,
                  const LstmDotWeights& w, Tensor* alphas = nullptr);

}  // namespace heed
