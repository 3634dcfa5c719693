#include "heed/models/bahdanau.h"

#include "heed/autograd/bahdanau_decoder.h"
#include "heed/autograd/concat.h"
#include "heed/autograd/elementwise.h"
#include "heed/autograd/gru.h"
#include "heed/autograd/index.h"
#include "heed/autograd/matmul.h"
#include "heed/models/model_detail.h"
#include "heed/models/model_factory.h"

namespace heed {
namespace {

const ModelConfig& checked(const ModelConfig& c) {
  HEED_CHECK(c.kind == "bahdanau", "Bahdanau: config kind is '", c.kind, "'");
  validate_model_config(c);
  return c;
}

AttentionConfig additive(const ModelConfig& c) {
  AttentionConfig a;
  a.score = "mlp";
  a.query_dim = c.dec_hidden;
  a.key_dim = c.enc_hidden * (c.bidirectional ? 2 : 1);
  a.attn_dim = c.resolved_attn_dim();
  return a;
}

constexpr const char* kName = "bahdanau";

}  // namespace

using namespace model_detail;

Bahdanau::Bahdanau(const ModelConfig& config, Rng& rng, DType dtype)
    : Seq2Seq(checked(config)),
      emb_dim_(config.emb_dim),
      src_emb_(config.src_vocab, config.emb_dim, kPad, rng, dtype),
      tgt_emb_(config.tgt_vocab, config.emb_dim, kPad, rng, dtype),
      encoder_(rnn_cell_from_name(config.resolved_encoder_cell()), config.emb_dim,
               config.enc_hidden, static_cast<int>(config.enc_layers), config.bidirectional, rng,
               dtype),
      W_init_(config.enc_hidden, config.dec_hidden, true, rng, dtype),
      attention_(additive(config), rng, dtype),
      decoder_(RnnCell::gru, config.emb_dim + encoder_.output_dim(), config.dec_hidden, rng,
               dtype),
      W_o_(config.dec_hidden + encoder_.output_dim() + config.emb_dim, config.resolved_out_dim(),
           true, rng, dtype),
      W_out_(config.resolved_out_dim(), config.tgt_vocab, rng, dtype,
             config.tie_embeddings ? tgt_emb_.weight : Var()) {
  register_module("src_emb", src_emb_);
  register_module("tgt_emb", tgt_emb_);
  register_module("encoder", encoder_);
  register_module("W_init", W_init_);
  register_module("attention", attention_);
  register_module("decoder", decoder_);
  register_module("W_o", W_o_);
  register_module("W_out", W_out_);
}

Encoded Bahdanau::encode(const TokenBatch& src) const {
  check_token_batch(src, config_.src_vocab, "bahdanau source");
  const double p = config_.dropout;
  Var x = maybe_dropout(src_emb_.forward(src.ids, {src.batch, src.len}), p, training(), rng(),
                        kName);
  RnnSequenceOutput r = encoder_.forward(x, to_int32(src.lengths), p, training(), rng());
  Encoded enc;
  enc.annotations = r.output;                       // H (B, m, dirs * d)
  enc.keys = attention_.keys(enc.annotations);      // U_h h_j + b, once per batch
  enc.lengths = src.lengths;
  // s_0 = tanh(W_init <-h_1 + b_init): the backward state at the first source position.
  const int dirs = encoder_.directions();
  Var h_back = final_state(r.h_n, encoder_.layers() - 1, dirs - 1, dirs);
  enc.initial.parts = {tanh(W_init_.forward(h_back))};
  return enc;
}

DecoderState Bahdanau::initial_state(const Encoded& enc) const { return enc.initial; }

Var Bahdanau::deep_output(const Var& features) const {
  Var o = tanh(W_o_.forward(features));
  return W_out_.forward(maybe_dropout(o, config_.dropout, training(), rng(), kName));
}

StepOutput Bahdanau::step(std::span<const std::int32_t> y_prev, DecoderState& state,
                          const Encoded& enc) const {
  check_step(y_prev, state, 1, enc, config_.tgt_vocab, kName);
  const auto B = static_cast<std::int64_t>(y_prev.size());
  Var e = maybe_dropout(
      tgt_emb_.forward(std::vector<std::int32_t>(y_prev.begin(), y_prev.end()), {B}),
      config_.dropout, training(), rng(), kName);
  const Var& s_prev = state.parts[0];
  Attention::Output att = attention_.forward(s_prev, enc.annotations, enc.keys, enc.lengths);
  Var s = gru_cell(concat({e, att.context}, 1), s_prev, decoder_.weight_ih, decoder_.weight_hh,
                   decoder_.bias_ih, decoder_.bias_hh);
  state.parts[0] = s;
  return {deep_output(concat({s, att.context, e}, 1)), att.alpha};
}

Var Bahdanau::output_features(const TokenBatch& src, const TokenBatch& tgt_in,
                              Tensor* alphas) const {
  Encoded enc = encode(src);
  check_target(tgt_in, src.batch, config_.tgt_vocab, kName);
  const std::int64_t B = tgt_in.batch, n = tgt_in.len;
  // e(y_{t-1}) for every step at once, and its block of the decoder's input projection
  // (W_ih's first emb_dim columns) in one GEMM; per step only the context block remains.
  Var E = maybe_dropout(tgt_emb_.forward(tgt_in.ids, {B, n}), config_.dropout, training(), rng(),
                        kName);
  Var X = add_bias(linear_columns(E, decoder_.weight_ih, 0), decoder_.bias_ih);  // (B, n, 3H)
  // The recurrence (attention, context block of the input projection, GRU) over all n steps
  // as one op: rows (b, t) of SC are [s_t | c_t].
  BahdanauDecoderWeights w;
  w.w_ih = decoder_.weight_ih;
  w.ctx_col = emb_dim_;
  w.w_hh = decoder_.weight_hh;
  w.b_hh = decoder_.bias_hh;
  w.W_q = attention_.weights().W;
  w.v = attention_.weights().v;
  Var SC = bahdanau_decoder(X, enc.initial.parts[0], enc.annotations, enc.keys, enc.lengths, w,
                            alphas);
  return concat({SC, E}, 2);  // (B, n, H + dk + emb): [s_t; c_t; e(y_{t-1})]
}

Var Bahdanau::forward(const TokenBatch& src, const TokenBatch& tgt_in, Tensor* alphas) const {
  // The deep output and the vocabulary projection over all B * n rows at once.
  Var logits = deep_output(output_features(src, tgt_in, alphas));  // (B, n, V)
  return reshape(logits, {tgt_in.batch * tgt_in.len, config_.tgt_vocab});
}

Var Bahdanau::forward_packed(const TokenBatch& src, const TokenBatch& tgt_in) const {
  return deep_output(gather_rows(output_features(src, tgt_in, nullptr), target_rows(tgt_in)));
}

}  // namespace heed
