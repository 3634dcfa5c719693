#pragma once
// The decoder that reads its context BEFORE its recurrent step (docs/MODELS.md#bahdanau):
//   c_t = attention(s_{t-1}, H)  or, with attention off, the fixed context [->h_m; <-h_1]
//   s_t = GRUCell([e(y_{t-1}); c_t], s_{t-1})
//   features_t = [s_t; c_t; e(y_{t-1})]
//   logits_t = W_out dropout(tanh(W_o features_t + b_o)) + b_out       (the deep output)
//   s_0 = tanh(W_init <-h_1 + b_init): the encoder's last layer, backward state at the first
//   position (forward final state when the encoder is unidirectional).
// With location features (docs/MODELS.md#location-aware-attention, #coverage) the score
// reads alpha_{t-1} or the coverage c_t, kept in the state beside s.
// Parameters (PyTorch names): tgt_emb, W_init, attention (W_q, U_h, v; F, U_f; w_c), decoder (the GRU
// cell), W_o, W_out (tied to tgt_emb.weight with tie_embeddings). Dropout in training on the
// target embeddings and on the deep output. Bahdanau's model and the no-attention baseline
// are this decoder with attention on and off.
#include <memory>

#include "heed/models/decoder.h"
#include "heed/models/decoder_attention.h"
#include "heed/models/model_config.h"
#include "heed/models/output_layer.h"
#include "heed/models/recurrent.h"
#include "heed/models/seq2seq.h"
#include "heed/nn/attention_layer.h"
#include "heed/nn/embedding_layer.h"
#include "heed/nn/linear.h"

namespace heed {

class BahdanauDecoder : public Decoder {
 public:
  // attend: additive attention over the annotations, else the fixed context.
  BahdanauDecoder(std::unique_ptr<Embedding> tgt_emb, const ModelConfig& config,
                  std::int64_t annotation_dim, bool attend, Rng& rng, DType dtype);

  Var embed(std::span<const std::int32_t> ids, const Shape& shape,
            const RunMode& mode) const override;
  Encoded prepare(const EncoderOutput& enc, const RunMode& mode) const override;
  Var step(const Var& e, DecoderState& state, const Encoded& enc, const RunMode& mode,
           Var* alpha) const override;
  Var pre_output(const Var& features, const RunMode& mode) const override;
  const OutputLayer& output_layer() const override { return W_out_; }
  std::optional<Var> accelerated(const Var& E, const Encoded& enc, const RunMode& mode,
                                 Tensor* alphas) const override;

  bool has_attention() const override { return attention_ != nullptr; }
  // {s}, and with attention {s, alpha_{t-1}} or {s, alpha_{t-1}, c_t} (decoder_attention.h).
  std::size_t state_parts() const override {
    return 1 + (attention_ ? attention_state_parts(*attention_) : 0);
  }
  std::int64_t vocab() const override { return vocab_; }
  std::int64_t feature_dim() const override { return W_o_.in_features(); }
  NamedModules modules() override;

 private:
  std::int64_t emb_dim_, vocab_;
  std::unique_ptr<Embedding> tgt_emb_;
  Linear W_init_;
  std::unique_ptr<Attention> attention_;  // null: the fixed context
  RecurrentCell cell_;
  Linear W_o_;
  OutputLayer W_out_;
};

// The checks and the builder the two kinds with this decoder share (bahdanau: attend;
// noattn: the fixed context).
void validate_gru_decoder_model(const ModelConfig& config);
std::unique_ptr<Seq2Seq> make_gru_decoder_model(const ModelConfig& config, bool attend, Rng& rng,
                                                DType dtype);

}  // namespace heed
