// The Transformer (Vaswani et al. 2017; docs/MODELS.md#transformer): a TransformerEncoder and
// a TransformerDecoder, stacks of multi-head attention, with model.d_model, model.heads,
// model.ff_dim, model.enc_layers and model.dec_layers.
#include "heed/models/encoder_decoder.h"
#include "heed/models/model_registry.h"
#include "heed/models/pointer_generator.h"
#include "heed/models/transformer_decoder.h"
#include "heed/models/transformer_encoder.h"

namespace heed {
namespace {

void validate(const ModelConfig& c) {
  const TransformerConfig& t = c.transformer;
  HEED_CHECK(t.d_model >= 1, "model.d_model must be at least 1, got ", t.d_model);
  HEED_CHECK(t.heads >= 1, "model.heads must be at least 1, got ", t.heads);
  HEED_CHECK(t.d_model % t.heads == 0, "model.heads (", t.heads, ") must divide model.d_model (",
             t.d_model, "): each head reads d_model / heads of the columns");
  HEED_CHECK(t.ff_dim >= 1, "model.ff_dim must be at least 1, got ", t.ff_dim);
  HEED_CHECK(t.max_positions >= 1, "model.max_positions must be at least 1, got ",
             t.max_positions);
  HEED_CHECK(t.alignment_layer >= 0 && t.alignment_layer <= c.dec_layers,
             "model.alignment_layer must be a decoder layer, 1 to dec_layers (", c.dec_layers,
             "), or 0 for the last, got ", t.alignment_layer);
  HEED_CHECK(t.alignment_head >= 0 && t.alignment_head <= t.heads, "model.alignment_head must "
             "be a head, 1 to heads (", t.heads, "), or 0 for the heads averaged, got ",
             t.alignment_head);
  HEED_CHECK(c.attention_mode == AttentionMode::soft, "model.attention.mode: the transformer's "
             "attention is soft (hard attention is for bahdanau, luong and image2seq)");
  HEED_CHECK(!c.local_p, "model.local_p: local-p attention is luong's, not the transformer's");
  HEED_CHECK(!t.share_embeddings || c.src_vocab == c.tgt_vocab,
             "model.share_embeddings needs one vocabulary for both sides (one embedding "
             "table reads both; heed train builds it from both sides' lines), got src_vocab ",
             c.src_vocab, " and tgt_vocab ", c.tgt_vocab);
}

// With model.share_embeddings one table, the encoder's, which the decoder reads too.
std::unique_ptr<Seq2Seq> build(const ModelConfig& c, Rng& rng, DType dtype) {
  const bool shared = c.transformer.share_embeddings;
  auto src_emb = transformer_embedding(c.src_vocab, c.transformer.d_model, rng, dtype);
  std::unique_ptr<Embedding> tgt_emb;
  if (!shared) tgt_emb = transformer_embedding(c.tgt_vocab, c.transformer.d_model, rng, dtype);
  auto encoder = std::make_unique<TransformerEncoder>(std::move(src_emb), c, rng, dtype);
  auto decoder =
      shared ? std::make_unique<TransformerDecoder>(encoder->embedding(), c, rng, dtype)
             : std::make_unique<TransformerDecoder>(std::move(tgt_emb), c, rng, dtype);
  // Copy attention's gate, drawn last as for the recurrent kinds.
  std::unique_ptr<Linear> gate =
      c.copy ? make_copy_gate(decoder->feature_dim(), rng, dtype) : nullptr;
  return std::make_unique<EncoderDecoder>(c, std::move(encoder), std::move(decoder),
                                          std::move(gate));
}

// Learned positions bound the source and the target alike; sinusoidal ones do not.
std::int64_t max_length(const ModelConfig& c) {
  return c.transformer.positions == PositionEncoding::learned ? c.transformer.max_positions : 0;
}

double parameters(const ModelConfig& c) {
  const TransformerConfig& t = c.transformer;
  const double d = static_cast<double>(t.d_model), ff = static_cast<double>(t.ff_dim);
  const double layer = 4.0 * d * d + 2.0 * d * ff;  // attention and feed-forward weights
  const double positions =
      t.positions == PositionEncoding::learned ? 2.0 * static_cast<double>(t.max_positions) * d : 0.0;
  // The embedding tables: one with share_embeddings (src_vocab == tgt_vocab).
  const std::int64_t rows = c.src_vocab + (t.share_embeddings ? 0 : c.tgt_vocab);
  return static_cast<double>(rows) * d + positions +
         static_cast<double>(c.enc_layers) * layer +
         static_cast<double>(c.dec_layers) * (layer + 4.0 * d * d) +
         static_cast<double>(c.tgt_vocab) * (d + 1.0) + (c.copy ? d + 1.0 : 0.0);
}

std::vector<std::pair<const char*, std::int64_t>> sizes(const ModelConfig& c) {
  const TransformerConfig& t = c.transformer;
  return {{"d_model", t.d_model},     {"ff_dim", t.ff_dim},       {"enc_layers", c.enc_layers},
          {"dec_layers", c.dec_layers}, {"src_vocab", c.src_vocab}, {"tgt_vocab", c.tgt_vocab},
          {"max_positions", t.positions == PositionEncoding::learned ? t.max_positions : 0}};
}

}  // namespace

extern const ModelKindSpec kTransformerSpec{
    ModelKind::transformer, RnnCell::gru, validate, build, max_length, nullptr, parameters, sizes,
    max_length};

}  // namespace heed
