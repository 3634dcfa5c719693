#pragma once
// The decoder that reads its context AFTER its recurrent step (docs/MODELS.md#luong):
//   input_t = [e(y_{t-1}); h~_{t-1}] (input feeding, h~_0 = 0) or e(y_{t-1})
//   h_t = LSTM stack(input_t, state_{t-1})     (dropout between the layers in training)
//   alpha_t, c_t = attention(h_t, H)            (any score; global or local-p)
//   features_t = h~_t = tanh(W_c [c_t; h_t]);  logits_t = W_s h~_t + b_s
// Layer l starts from encoder layer l's final (h, c), through bridge_h / bridge_c on
// [->; <-] when the encoder is bidirectional or its size differs from the decoder's.
// Parameters (PyTorch names): tgt_emb, bridge_h, bridge_c, cells (cells.<l>.weight_ih, ...),
// attention, W_c, W_s (tied to tgt_emb.weight with tie_embeddings).
#include <memory>

#include "heed/models/decoder.h"
#include "heed/models/decoder_attention.h"
#include "heed/models/model_config.h"
#include "heed/models/output_layer.h"
#include "heed/models/recurrent.h"
#include "heed/nn/attention_layer.h"
#include "heed/nn/embedding_layer.h"
#include "heed/nn/linear.h"

namespace heed {

class LuongDecoder : public Decoder {
 public:
  LuongDecoder(std::unique_ptr<Embedding> tgt_emb, const ModelConfig& config,
               std::int64_t annotation_dim, Rng& rng, DType dtype);

  Var embed(std::span<const std::int32_t> ids, const Shape& shape,
            const RunMode& mode) const override;
  // State {h_1..h_L, c_1..c_L, h~} (h~_0 = 0).
  Encoded prepare(const EncoderOutput& enc, const RunMode& mode) const override;
  Var step(const Var& e, DecoderState& state, const Encoded& enc, const RunMode& mode,
           Var* alpha) const override;
  Var pre_output(const Var& features, const RunMode& mode) const override;
  const OutputLayer& output_layer() const override { return W_s_; }
  std::optional<Var> accelerated(const Var& E, const Encoded& enc, const RunMode& mode,
                                 Tensor* alphas) const override;

  bool has_attention() const override { return true; }
  // {h_1..h_L, c_1..c_L, h~} and the attention's {alpha_{t-1}} or {alpha_{t-1}, c_t}.
  std::size_t state_parts() const override {
    return 2 * static_cast<std::size_t>(layers_) + 1 + attention_state_parts(attention_);
  }
  std::int64_t vocab() const override { return vocab_; }
  std::int64_t feature_dim() const override { return W_c_.out_features(); }
  NamedModules modules() override;

 private:
  int layers_;
  std::int64_t emb_dim_, hidden_, vocab_;
  bool input_feed_;
  std::unique_ptr<Embedding> tgt_emb_;
  CellStack cells_;
  Attention attention_;
  Linear W_c_;
  OutputLayer W_s_;
  std::unique_ptr<Linear> bridge_h_, bridge_c_;
};

}  // namespace heed
