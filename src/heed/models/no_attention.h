#pragma once
// The no-attention baseline of shared/MODELS.md (the reference's NoAttention): the decoder
// sees one fixed vector, the encoder's final state c = [->h_m; <-h_1] (->h_m alone for a
// unidirectional encoder), at every step:
//   s_0 = tanh(W_init <-h_1 + b_init)
//   s_t = GRUCell([e(y_{t-1}); c], s_{t-1})
//   logits = W_out tanh(W_o [s_t; c; e(y_{t-1})] + b_o) + b_out
// It measures the bottleneck that attention removes. Config extensions as Bahdanau's.
#include "heed/models/output_layer.h"
#include "heed/models/recurrent.h"
#include "heed/models/seq2seq.h"
#include "heed/nn/embedding.h"
#include "heed/nn/linear.h"

namespace heed {

class NoAttention : public Seq2Seq {
 public:
  NoAttention(const ModelConfig& config, Rng& rng, DType dtype = DType::f32);

  Encoded encode(const TokenBatch& src) const override;
  DecoderState initial_state(const Encoded& enc) const override;
  StepOutput step(std::span<const std::int32_t> y_prev, DecoderState& state,
                  const Encoded& enc) const override;
  // alphas, if given, is left undefined: this model attends to nothing.
  Var forward(const TokenBatch& src, const TokenBatch& tgt_in,
              Tensor* alphas = nullptr) const override;
  bool has_attention() const override { return false; }

 private:
  Var deep_output(const Var& s, const Var& c, const Var& e) const;

  std::int64_t emb_dim_;
  Embedding src_emb_, tgt_emb_;
  RecurrentStack encoder_;
  Linear W_init_;
  RecurrentCell decoder_;
  Linear W_o_;
  OutputLayer W_out_;
};

}  // namespace heed
