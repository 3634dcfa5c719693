#pragma once
// The Transformer's decoder (docs/MODELS.md#transformer): target embeddings scaled by
// sqrt(d_model), plus positions, dropout, then dec_layers layers of masked self-attention,
// encoder-decoder attention and a feed-forward network (models/transformer_layers.h), a
// final layer norm, and logits = W_s h + b_s (W_s tied to the target embedding with
// tie_embeddings).
// With model.share_embeddings it reads the encoder's table (borrowed: the encoder owns and
// registers it as src_emb, so the decoder has no tgt_emb and tying hands W_s that table).
//
// step() runs one position incrementally: the state holds, per layer, the keys and values of
// the earlier positions' self-attention, [K; V] 2 d a position, in a PositionCache
// (models/position_cache.h: appended in place, reordered by index); the encoder-decoder keys and values of every layer
// are computed once per batch (prepare: Encoded::keys, (B, m, 2 d L)). accelerated() runs the
// whole teacher-forced target at once with the causal mask, equal to the steps.
// The attention output alpha is the encoder-decoder weights of model.alignment_layer, its
// head model.alignment_head or the heads averaged: what copy attention copies through
// (model.copy, models/pointer_generator.h), so they stay on the tape.
// Parameters (PyTorch names): tgt_emb (not with share_embeddings), tgt_pos (learned
// positions), decoder.layers.<l>.*, decoder.norm, W_s.
#include <memory>

#include "heed/models/decoder.h"
#include "heed/models/model_config.h"
#include "heed/models/output_layer.h"
#include "heed/models/positions.h"
#include "heed/models/transformer_encoder.h"
#include "heed/models/transformer_layers.h"
#include "heed/nn/embedding_layer.h"

namespace heed {

class TransformerDecoder : public Decoder {
 public:
  // tgt_emb: the decoder's own table, made by the caller.
  TransformerDecoder(std::unique_ptr<Embedding> tgt_emb, const ModelConfig& config, Rng& rng,
                     DType dtype);
  // shared: the encoder's table (model.share_embeddings), which must outlive the decoder.
  TransformerDecoder(const Embedding& shared, const ModelConfig& config, Rng& rng, DType dtype);

  // e(y) sqrt(d_model); the positions are added by step() and accelerated(), which know them.
  Var embed(std::span<const std::int32_t> ids, const Shape& shape,
            const RunMode& mode) const override;
  Encoded prepare(const EncoderOutput& enc, const RunMode& mode) const override;
  Var step(const Var& e, DecoderState& state, const Encoded& enc, const RunMode& mode,
           Var* alpha) const override;
  Var pre_output(const Var& features, const RunMode& mode) const override;
  const OutputLayer& output_layer() const override { return W_s_; }
  std::optional<Var> accelerated(const Var& E, const Encoded& enc, const RunMode& mode,
                                 Tensor* alphas) const override;

  AttentionHeads attention_heads(const Var& E, const Encoded& enc,
                                 const RunMode& mode) const override;
  bool has_attention() const override { return true; }
  std::size_t state_parts() const override { return 0; }  // its state is caches only
  std::int64_t vocab() const override { return vocab_; }
  std::int64_t feature_dim() const override { return d_; }
  NamedModules modules() override;

  // Positions [start, start + n) of E (B, n, d) through every layer: the features (B, n, d);
  // state: the caches (incremental), or null (the whole target, causal). weights, if given,
  // receives each layer's encoder-decoder weights (B, heads, n, m) (on the tape: copy
  // attention's loss reads them), self_weights each layer's self-attention weights
  // (B, heads, n, start + n).
  Var run(const Var& E, std::int64_t start, DecoderState* state, const Encoded& enc,
          const RunMode& mode, std::vector<Var>* weights,
          std::vector<Tensor>* self_weights = nullptr) const;

 private:
  // The attention output (B, n, m) from the layers' weights: the alignment layer's
  // (B, heads, n, m), one head or their mean.
  Var alignment(const std::vector<Var>& weights) const;

  TransformerDecoder(std::unique_ptr<Embedding> own, const Embedding* shared,
                     const ModelConfig& config, Rng& rng, DType dtype);

  std::int64_t d_, vocab_, align_layer_, align_head_;
  std::unique_ptr<Embedding> own_emb_;  // null when the table is the encoder's
  const Embedding* tgt_emb_;            // the table read: own_emb_ or the encoder's
  Positions positions_;
  TransformerStack<TransformerDecoderLayer> stack_;
  OutputLayer W_s_;
};

}  // namespace heed
