#pragma once
// ModelConfig: everything that fixes a model's architecture (the `model:` section of a
// training config). Defaults give the reference's Bahdanau model at the g2p sizes.
#include <cstdint>
#include <string>

namespace heed {

struct ModelConfig {
  std::string kind = "bahdanau";   // bahdanau | luong | noattn
  std::int64_t src_vocab = 0;      // filled from the vocabularies
  std::int64_t tgt_vocab = 0;
  std::int64_t emb_dim = 128;
  // Encoder: cell gru | lstm, depth, direction. Bahdanau/noattn default to a 1-layer bi-GRU,
  // Luong to a unidirectional LSTM stack of `layers` (the reference's choices).
  std::string encoder_cell = "";   // "" = the model's default
  std::int64_t enc_hidden = 256;   // per direction
  std::int64_t enc_layers = 1;
  bool bidirectional = true;
  std::int64_t dec_hidden = 256;
  std::int64_t dec_layers = 1;     // Luong: decoder LSTM stack depth
  std::int64_t attn_dim = 0;       // additive / concat attention size; 0 = dec_hidden
  std::int64_t out_dim = 0;        // Bahdanau/noattn deep-output size; 0 = dec_hidden
  std::string score = "mlp";       // Luong: dot | scaled_dot | general | concat | mlp | location
  bool input_feed = true;          // Luong
  bool local_p = false;            // Luong local-p attention
  std::int64_t window = 10;        // local-p half-width D
  std::int64_t max_src_len = 100;  // location score
  double dropout = 0.0;
  bool tie_embeddings = false;     // target embedding shares the output layer's weight

  // The sizes and choices above with "" and 0 resolved to the model's defaults.
  std::string resolved_encoder_cell() const {
    if (!encoder_cell.empty()) return encoder_cell;
    return kind == "luong" ? "lstm" : "gru";
  }
  std::int64_t resolved_attn_dim() const { return attn_dim > 0 ? attn_dim : dec_hidden; }
  std::int64_t resolved_out_dim() const { return out_dim > 0 ? out_dim : dec_hidden; }
};

}  // namespace heed
