#pragma once
// Bahdanau et al. (2015), "RNNsearch", as shared/MODELS.md "Bahdanau model" and the
// reference's Bahdanau class (bench/torch_ref/models.py), parameter names included:
//   encoder   bidirectional GRU over e(x): annotations h_j = [->h_j; <-h_j]
//   s_0       = tanh(W_init <-h_1 + b_init)
//   step t    alpha_t = softmax(v^T tanh(W_q s_{t-1} + U_h h_j + b));  c_t = sum_j alpha_tj h_j
//             s_t = GRUCell([e(y_{t-1}); c_t], s_{t-1})
//             o_t = tanh(W_o [s_t; c_t; e(y_{t-1})] + b_o);  logits = W_out o_t + b_out
// Beyond the reference: encoder_cell lstm, enc_layers > 1 (W_init reads the last layer's
// backward state, or its forward final state when unidirectional), dropout (on both
// embeddings, between encoder layers and on o_t), tie_embeddings (W_out = tgt_emb.weight).
#include "heed/models/output_layer.h"
#include "heed/models/recurrent.h"
#include "heed/models/seq2seq.h"
#include "heed/nn/attention.h"
#include "heed/nn/embedding.h"
#include "heed/nn/linear.h"

namespace heed {

class Bahdanau : public Seq2Seq {
 public:
  Bahdanau(const ModelConfig& config, Rng& rng, DType dtype = DType::f32);

  Encoded encode(const TokenBatch& src) const override;
  DecoderState initial_state(const Encoded& enc) const override;
  StepOutput step(std::span<const std::int32_t> y_prev, DecoderState& state,
                  const Encoded& enc) const override;
  Var forward(const TokenBatch& src, const TokenBatch& tgt_in,
              Tensor* alphas = nullptr) const override;
  Var forward_packed(const TokenBatch& src, const TokenBatch& tgt_in) const override;

 private:
  // The teacher-forced decoder up to the output layers: (B, n, H + dk + emb) rows
  // [s_t; c_t; e(y_{t-1})].
  Var output_features(const TokenBatch& src, const TokenBatch& tgt_in, Tensor* alphas) const;
  // o = tanh(W_o [s; c; e] + b_o) -> W_out o + b_out, over any leading dimensions.
  Var deep_output(const Var& features) const;

  std::int64_t emb_dim_;
  Embedding src_emb_, tgt_emb_;
  RecurrentStack encoder_;
  Linear W_init_;
  Attention attention_;
  RecurrentCell decoder_;
  Linear W_o_;
  OutputLayer W_out_;
};

}  // namespace heed
