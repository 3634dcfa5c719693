#pragma once
// Tiny models for the models' tests: sizes small enough for gradient checks in double
// precision, and different from each other so that shape mistakes show.
#include <string>

#include "heed/base/enum_names.h"
#include "heed/models/model_config.h"

namespace heed::testing {

inline ModelConfig tiny_config(const std::string& kind) {
  ModelConfig c;
  c.kind = parse_enum<ModelKind>(kind, "model.kind");
  c.src_vocab = 10;
  c.tgt_vocab = 9;
  c.emb_dim = 3;
  c.enc_hidden = 3;
  c.dec_hidden = 4;
  c.attn_dim = 3;
  c.out_dim = 5;
  if (kind == "luong") {
    c.enc_hidden = 4;
    c.bidirectional = false;
    c.score = AttentionScore::general;
    c.dec_layers = c.enc_layers = 2;
  }
  if (kind == "transformer") {
    c.transformer.d_model = 4;
    c.transformer.heads = 2;
    c.transformer.ff_dim = 6;
    c.enc_layers = 2;
    c.dec_layers = 2;
  }
  return c;
}

// A tiny image classifier of `kind` (fc, cnn or ram) over 3 classes of height x width images:
// fc with two hidden layers of 3, cnn with two convolution layers from 2 channels, ram with
// three glimpses of two 2x2 scales.
inline ModelConfig tiny_image_config(const std::string& kind, std::int64_t height,
                                     std::int64_t width) {
  ModelConfig c;
  c.kind = parse_enum<ModelKind>(kind, "model.kind");
  c.tgt_vocab = 4 + 3;
  c.classifier.image_height = height;
  c.classifier.image_width = width;
  c.classifier.fc_layers = 2;
  c.classifier.fc_hidden = 3;
  c.image.conv_layers = 2;
  c.image.conv_channels = 2;
  c.ram.glimpses = 3;
  c.ram.glimpse_size = 2;
  c.ram.scales = 2;
  c.ram.glimpse_hidden = 3;
  c.ram.location_hidden = 2;
  c.ram.glimpse_dim = 4;
  c.ram.core_hidden = 4;
  return c;
}

// A small recurrent attention model for its own tests: four glimpses of two scales from 4x4
// pixels, every size different so that shape mistakes show; location_std 0.5, wide enough
// that sampled paths differ.
inline RamConfig small_ram_config() {
  RamConfig c;
  c.glimpses = 4;
  c.glimpse_size = 4;
  c.scales = 2;
  c.glimpse_hidden = 6;
  c.location_hidden = 5;
  c.glimpse_dim = 7;
  c.core_hidden = 8;
  c.location_std = 0.5;
  return c;
}

}  // namespace heed::testing
