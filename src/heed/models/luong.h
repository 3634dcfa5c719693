#pragma once
// Luong et al. (2015), global and local-p attention, as shared/MODELS.md "Luong model" and
// the reference's Luong class (bench/torch_ref/models.py), parameter names included:
//   encoder   stacked LSTM (optionally bidirectional) over e(x): annotations H
//   start     decoder layer l from encoder layer l's final (h, c); with a bidirectional
//             encoder (or enc_hidden != dec_hidden) through bridge_h / bridge_c on [->; <-]
//   step t    input_t = [e(y_{t-1}); h~_{t-1}] (input feeding, h~_0 = 0) or e(y_{t-1})
//             h_t = LSTM_stack(input_t, state_{t-1})   (dropout between layers in training)
//             alpha_t = attention(h_t, H) (any score; global or local-p);  c_t = sum alpha h
//             h~_t = tanh(W_c [c_t; h_t]);  logits = W_s h~_t + b_s
// Attention reads h_t, after the recurrent step. tie_embeddings shares W_s with tgt_emb.
#include "heed/models/output_layer.h"
#include "heed/models/recurrent.h"
#include "heed/models/seq2seq.h"
#include "heed/nn/attention.h"
#include "heed/nn/embedding.h"
#include "heed/nn/linear.h"

namespace heed {

class Luong : public Seq2Seq {
 public:
  Luong(const ModelConfig& config, Rng& rng, DType dtype = DType::f32);

  Encoded encode(const TokenBatch& src) const override;
  // {h_1..h_L, c_1..c_L, h~} (h~_0 = 0).
  DecoderState initial_state(const Encoded& enc) const override;
  StepOutput step(std::span<const std::int32_t> y_prev, DecoderState& state,
                  const Encoded& enc) const override;
  Var forward(const TokenBatch& src, const TokenBatch& tgt_in,
              Tensor* alphas = nullptr) const override;
  Var forward_packed(const TokenBatch& src, const TokenBatch& tgt_in) const override;

 private:
  // The teacher-forced decoder up to the output layer: h~_t for every step, (B, n, H).
  Var attentional_states(const TokenBatch& src, const TokenBatch& tgt_in, Tensor* alphas) const;
  // Layers 1..L-1 of the decoder stack on top of layer 0's new state; writes the new (h, c)
  // into hs/cs and returns the top h_t.
  Var upper_layers(Var x, std::vector<Var>& hs, std::vector<Var>& cs) const;
  // Whether forward can run the decoder as one fused op: a dot-product score (dot,
  // scaled_dot, general), global soft attention, no dropout between decoder layers.
  bool fused_decoder_applies() const;
  // h~ = tanh(W_c [c; h]) over any leading dimensions.
  Var attentional(const Var& context, const Var& h) const;

  int layers_;
  std::int64_t emb_dim_, hidden_;
  bool input_feed_;
  Embedding src_emb_, tgt_emb_;
  RecurrentStack encoder_;
  std::unique_ptr<Linear> bridge_h_, bridge_c_;
  CellStack cells_;
  Attention attention_;
  Linear W_c_;
  OutputLayer W_s_;
};

}  // namespace heed
