#include "heed/models/model_factory.h"

#include "heed/autograd/attention.h"
#include "heed/models/bahdanau.h"
#include "heed/models/luong.h"
#include "heed/models/no_attention.h"

namespace heed {

void validate_model_config(const ModelConfig& c) {
  const std::string& k = c.kind;
  HEED_CHECK(k == "bahdanau" || k == "luong" || k == "noattn", "model.kind: unknown model '", k,
             "' (expected bahdanau, luong or noattn)");
  HEED_CHECK(c.src_vocab >= 4 && c.tgt_vocab >= 4, "model: src_vocab and tgt_vocab must hold at "
             "least the 4 special tokens (pad, bos, eos, unk), got ", c.src_vocab, " and ",
             c.tgt_vocab);
  HEED_CHECK(c.emb_dim > 0, "model.emb_dim must be positive, got ", c.emb_dim);
  HEED_CHECK(c.enc_hidden > 0, "model.enc_hidden must be positive, got ", c.enc_hidden);
  HEED_CHECK(c.dec_hidden > 0, "model.dec_hidden must be positive, got ", c.dec_hidden);
  HEED_CHECK(c.enc_layers >= 1, "model.enc_layers must be at least 1, got ", c.enc_layers);
  HEED_CHECK(c.dec_layers >= 1, "model.dec_layers must be at least 1, got ", c.dec_layers);
  HEED_CHECK(c.attn_dim >= 0, "model.attn_dim must be positive (or 0 for dec_hidden), got ",
             c.attn_dim);
  HEED_CHECK(c.out_dim >= 0, "model.out_dim must be positive (or 0 for dec_hidden), got ",
             c.out_dim);
  HEED_CHECK(c.dropout >= 0 && c.dropout < 1, "model.dropout must be in [0, 1), got ", c.dropout);
  const std::string cell = c.resolved_encoder_cell();
  HEED_CHECK(cell == "gru" || cell == "lstm", "model.encoder_cell: unknown cell '", cell,
             "' (expected gru or lstm)");
  const std::int64_t enc_dim = c.enc_hidden * (c.bidirectional ? 2 : 1);

  if (k == "luong") {
    HEED_CHECK(cell == "lstm", "model.encoder_cell: luong's decoder is an LSTM stack started from "
               "the encoder's final (h, c) states, so the encoder must be lstm, got ", cell);
    HEED_CHECK(c.enc_layers == c.dec_layers, "model: luong starts decoder layer l from encoder "
               "layer l, so enc_layers (", c.enc_layers, ") must equal dec_layers (",
               c.dec_layers, ")");
    const AttentionScore score = attention_score_from_name(c.score);  // throws on unknown names
    if (score == AttentionScore::dot || score == AttentionScore::scaled_dot)
      HEED_CHECK(enc_dim == c.dec_hidden, "model.score ", c.score, " needs the annotation size ",
                 "(enc_hidden x directions = ", enc_dim, ") to equal dec_hidden (", c.dec_hidden,
                 "); use general, concat or mlp otherwise");
    if (score == AttentionScore::location)
      HEED_CHECK(c.max_src_len >= 1, "model.max_src_len must be at least 1, got ", c.max_src_len);
    if (c.local_p)
      HEED_CHECK(c.window >= 1, "model.window (local-p half-width D) must be at least 1, got ",
                 c.window);
    if (c.tie_embeddings)
      HEED_CHECK(c.emb_dim == c.dec_hidden, "model.tie_embeddings: luong's output layer W_s is (",
                 c.tgt_vocab, ", dec_hidden = ", c.dec_hidden, "), the target embedding (",
                 c.tgt_vocab, ", emb_dim = ", c.emb_dim, "): set emb_dim = dec_hidden to tie them");
  } else {
    HEED_CHECK(c.dec_layers == 1, "model.dec_layers: ", k,
               " has a single GRU decoder cell, got dec_layers = ", c.dec_layers);
    HEED_CHECK(!c.local_p, "model.local_p: local-p attention exists for luong only, not ", k);
    if (k == "bahdanau")
      HEED_CHECK(c.score == "mlp" || c.score == "additive", "model.score: bahdanau uses "
                 "additive (mlp) attention, got '", c.score, "' (other scores: kind luong)");
    if (c.tie_embeddings)
      HEED_CHECK(c.emb_dim == c.resolved_out_dim(), "model.tie_embeddings: the output layer "
                 "W_out is (", c.tgt_vocab, ", out_dim = ", c.resolved_out_dim(), "), the target "
                 "embedding (", c.tgt_vocab, ", emb_dim = ", c.emb_dim,
                 "): set out_dim = emb_dim to tie them");
  }
}

std::unique_ptr<Seq2Seq> make_model(const ModelConfig& config, Rng& rng, DType dtype) {
  validate_model_config(config);
  if (config.kind == "bahdanau") return std::make_unique<Bahdanau>(config, rng, dtype);
  if (config.kind == "luong") return std::make_unique<Luong>(config, rng, dtype);
  return std::make_unique<NoAttention>(config, rng, dtype);
}

}  // namespace heed
