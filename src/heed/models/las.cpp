// Listen, attend and spell (docs/MODELS.md#listen-attend-and-spell; Chan et al. 2016): the
// PyramidalListener's annotations over log-mel frames, attended by the BahdanauDecoder with its
// additive score (the speller), which emits the transcript's symbols (the target tokeniser's:
// characters or words). The decoder starts from s_0 = tanh(W_init <-h_1), the listener's top
// layer's backward final state. Beyond the paper: a GRU listener, one decoder cell, the deep
// output, and Bahdanau's attention for Chan's. model.attention.mode none is the baseline without
// attention: every step reads the same fixed context [->h_m; <-h_1], the listener's top layer's
// final states (as kind noattn reads its encoder's).
#include "heed/models/bahdanau_decoder.h"
#include "heed/models/encoder_decoder.h"
#include "heed/models/listener.h"
#include "heed/models/model_registry.h"
#include "heed/models/score_checks.h"

namespace heed {
namespace {

void validate(const ModelConfig& c) {
  validate_gru_decoder_model(c);
  check_additive_score(c, "las uses additive (mlp) attention over the listener", "");
  HEED_CHECK(c.listener.feature_dim >= 1, "model.feature_dim: las reads log-mel frames of at "
             "least one bin (set from data.audio.mels), got ", c.listener.feature_dim);
  HEED_CHECK(c.listener.pyramid >= 1 && c.listener.pyramid <= 1024 &&
                 (c.listener.pyramid & (c.listener.pyramid - 1)) == 0,
             "model.pyramid: the listener's time reduction is a power of two from 1 to 1024, "
             "got ", c.listener.pyramid);
  std::int64_t layers = 0;  // the pyramid's: log2(pyramid)
  while ((std::int64_t{1} << layers) < c.listener.pyramid) ++layers;
  HEED_CHECK(layers < c.enc_layers, "model.pyramid: a reduction of ", c.listener.pyramid,
             " joins frames in ", layers, " layers above the first, so the listener needs "
             "model.enc_layers >= ", layers + 1, ", got ", c.enc_layers);
  const std::int64_t L = c.listener.frontend_layers;
  HEED_CHECK(L >= 0 && L <= 4, "model.frontend_layers: from 0 (no front end) to 4, got ", L);
  HEED_CHECK(L == 0 || (c.listener.frontend_channels >= 1 &&
                        (c.listener.frontend_channels << (L - 1)) <= 4096),
             "model.frontend_channels: at least 1, and the last layer's ",
             c.listener.frontend_channels, " x 2^", L - 1, " at most 4096");
  HEED_CHECK(L == 0 || c.listener.feature_dim >> L >= 1, "model.frontend_layers: ", L,
             " layers each halve the ", c.listener.feature_dim, " bins of a frame, too many for "
             "them (data.audio.mels)");
}

std::unique_ptr<Seq2Seq> build(const ModelConfig& c, Rng& rng, DType dtype) {
  // The reference's order of random draws: target embedding, listener, decoder.
  auto tgt_emb = std::make_unique<Embedding>(c.tgt_vocab, c.emb_dim, kPad, rng, dtype);
  auto listener = std::make_unique<PyramidalListener>(c, encoder_cell(c), rng, dtype);
  auto decoder = std::make_unique<BahdanauDecoder>(std::move(tgt_emb), c, listener->output_dim(),
                                                   c.attention_mode != AttentionMode::none, rng,
                                                   dtype);
  return std::make_unique<EncoderDecoder>(c, std::move(listener), std::move(decoder));
}

std::int64_t any_length(const ModelConfig&) { return 0; }

}  // namespace

extern const ModelKindSpec kListenAttendSpellSpec{ModelKind::las, RnnCell::lstm, validate, build,
                                                  any_length};

}  // namespace heed
