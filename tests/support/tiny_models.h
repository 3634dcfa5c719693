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
  return c;
}

}  // namespace heed::testing
