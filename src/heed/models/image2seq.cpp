// Image to sequence (docs/MODELS.md#image-to-sequence; Xu et al. 2015, "Show, Attend and
// Tell"): the ImageEncoder's grid cells are the annotations of the BahdanauDecoder with its
// additive score. model.attention.mode soft attends (the expectation over the cells), hard
// samples one cell per step (trained by REINFORCE, train/reinforce.h), none reads the mean
// annotation at every step (the fixed context of the no-attention baseline). The decoder
// starts from s_0 = tanh(W_init mean_i a_i), the encoder's final state.
#include "heed/models/bahdanau_decoder.h"
#include "heed/models/encoder_decoder.h"
#include "heed/models/image_encoder.h"
#include "heed/models/model_registry.h"
#include "heed/models/score_checks.h"

namespace heed {
namespace {

void validate(const ModelConfig& c) {
  validate_gru_decoder_model(c);
  check_additive_score(c, "image2seq uses additive (mlp) attention over the grid", "");
  HEED_CHECK(c.image.conv_layers >= 1 && c.image.conv_layers <= 8, "model.conv_layers: "
             "image2seq's CNN has 1 to 8 layers, got ", c.image.conv_layers);
  HEED_CHECK(c.image.conv_channels >= 1 &&
                 (c.image.conv_channels << (c.image.conv_layers - 1)) <= 4096,
             "model.conv_channels: at least 1, and the last layer's ", c.image.conv_channels,
             " x 2^", c.image.conv_layers - 1, " (the annotation size) at most 4096");
}

std::unique_ptr<Seq2Seq> build(const ModelConfig& c, Rng& rng, DType dtype) {
  // The reference's order of random draws: target embedding, encoder, decoder.
  auto tgt_emb = std::make_unique<Embedding>(c.tgt_vocab, c.emb_dim, kPad, rng, dtype);
  auto encoder = std::make_unique<ImageEncoder>(c.image, /*channels=*/1, rng, dtype);
  ModelConfig d = c;  // the decoder's W_init reads the mean annotation
  d.enc_hidden = encoder->output_dim();
  d.bidirectional = false;
  auto decoder = std::make_unique<BahdanauDecoder>(std::move(tgt_emb), d, encoder->output_dim(),
                                                   c.attention_mode != AttentionMode::none, rng,
                                                   dtype);
  return std::make_unique<EncoderDecoder>(c, std::move(encoder), std::move(decoder));
}

std::int64_t any_length(const ModelConfig&) { return 0; }

}  // namespace

extern const ModelKindSpec kImageToSequenceSpec{ModelKind::image2seq, RnnCell::gru, validate,
                                                build, any_length};

}  // namespace heed
