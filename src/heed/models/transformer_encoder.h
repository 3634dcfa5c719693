#pragma once
// The Transformer's encoder (docs/MODELS.md#transformer): token embeddings scaled by
// sqrt(d_model), plus positions, dropout, then enc_layers self-attention layers
// (models/transformer_layers.h) and a final layer norm; the annotations are the last layer's
// outputs after it. Parameters: src_emb.weight, src_pos.weight (learned positions), and
// encoder.layers.<l>.* and encoder.norm.*, nn.TransformerEncoder's names.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "heed/models/encoder.h"
#include "heed/models/positions.h"
#include "heed/models/transformer_layers.h"
#include "heed/nn/embedding_layer.h"

namespace heed {

// A stack of layers and the final norm: nn.TransformerEncoder / nn.TransformerDecoder's
// parameters ("layers.<l>.*", "norm.*").
template <typename Layer>
class TransformerStack : public Module {
 public:
  TransformerStack(const TransformerConfig& config, std::int64_t layers, Rng& rng, DType dtype)
      : norm(config.d_model, dtype) {
    for (std::int64_t l = 0; l < layers; ++l) {
      this->layers.push_back(std::make_unique<Layer>(config, rng, dtype));
      register_module("layers." + std::to_string(l), *this->layers.back());
    }
    register_module("norm", norm);
  }
  std::vector<std::unique_ptr<Layer>> layers;
  LayerNorm norm;
};

class TransformerEncoder : public Encoder {
 public:
  // The embedding is made by the caller (source embedding, target embedding, then the rest).
  TransformerEncoder(std::unique_ptr<Embedding> src_emb, const ModelConfig& config, Rng& rng,
                     DType dtype);

  EncoderOutput encode(const TokenBatch& src, const RunMode& mode) const override;
  std::int64_t output_dim() const override { return d_; }
  NamedModules modules() override;
  std::vector<Tensor> attention_heads(const TokenBatch& src, const RunMode& mode) const override;
  // The source table, which the decoder reads too with model.share_embeddings.
  const Embedding& embedding() const { return *emb_; }

 private:
  // The layers and the final norm; weights, if given, receives each layer's weights.
  EncoderOutput run(const TokenBatch& src, const RunMode& mode, std::vector<Tensor>* weights) const;

  std::int64_t d_;
  std::unique_ptr<Embedding> emb_;
  Positions positions_;
  TransformerStack<TransformerEncoderLayer> stack_;
};

// Token embeddings as the Transformer reads them: e(y) sqrt(d), the table drawn N(0, 1/d) so
// that the scaled rows start at unit variance (made by the model's builder).
std::unique_ptr<Embedding> transformer_embedding(std::int64_t vocab, std::int64_t d, Rng& rng,
                                                 DType dtype);
// ids laid out as `shape` -> e(ids) sqrt(d).
Var scaled_embedding(const Embedding& emb, std::span<const std::int32_t> ids, const Shape& shape,
                     Var* unscaled = nullptr);

}  // namespace heed
