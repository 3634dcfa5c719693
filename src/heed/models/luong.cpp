// Luong et al. (2015), global and local-p attention (docs/MODELS.md#luong): a TextEncoder (by
// default a unidirectional LSTM stack) and the LuongDecoder, any score.
#include "heed/models/encoder_decoder.h"
#include "heed/models/luong_decoder.h"
#include "heed/models/model_registry.h"
#include "heed/models/score_checks.h"

namespace heed {
namespace {

void validate(const ModelConfig& c) {
  const RnnCell cell = encoder_cell(c);
  HEED_CHECK(cell == RnnCell::lstm, "model.encoder_cell: luong's decoder is an LSTM stack started "
             "from the encoder's final (h, c) states, so the encoder must be lstm, got ",
             enum_name(cell));
  HEED_CHECK(c.enc_layers == c.dec_layers, "model: luong starts decoder layer l from encoder "
             "layer l, so enc_layers (", c.enc_layers, ") must equal dec_layers (", c.dec_layers,
             ")");
  check_score(c);
  check_location_features(c);
  if (c.local_p)
    HEED_CHECK(c.window >= 1, "model.window (local-p half-width D) must be at least 1, got ",
               c.window);
  if (c.tie_embeddings)
    HEED_CHECK(c.emb_dim == c.dec_hidden, "model.tie_embeddings: luong's output layer W_s is "
               "(tgt_vocab, dec_hidden = ", c.dec_hidden, "), the target embedding (tgt_vocab, "
               "emb_dim = ", c.emb_dim, "): set emb_dim = dec_hidden to tie them");
}

std::unique_ptr<Seq2Seq> build(const ModelConfig& c, Rng& rng, DType dtype) {
  return make_text_model(
      c, /*embedding_dropout=*/false,
      [&](std::unique_ptr<Embedding> tgt_emb, std::int64_t annotation_dim) {
        return std::make_unique<LuongDecoder>(std::move(tgt_emb), c, annotation_dim, rng, dtype);
      },
      rng, dtype);
}

// A score with a weight row per source position (location) bounds the source.
std::int64_t max_length(const ModelConfig& c) { return score_max_length(c); }

}  // namespace

extern const ModelKindSpec kLuongSpec{ModelKind::luong, RnnCell::lstm, validate, build, max_length};

}  // namespace heed
