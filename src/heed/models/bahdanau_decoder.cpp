#include "heed/models/bahdanau_decoder.h"

#include "heed/autograd/concat_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/gru.h"
#include "heed/fused/gru_additive_decoder.h"
#include "heed/models/decoder_attention.h"
#include "heed/models/encoder_decoder.h"
#include "heed/models/score_checks.h"

namespace heed {
namespace {

AttentionConfig additive(const ModelConfig& c, std::int64_t annotation_dim) {
  AttentionConfig a;
  a.score = AttentionScore::mlp;
  a.query_dim = c.dec_hidden;
  a.key_dim = annotation_dim;
  a.attn_dim = c.attn_dim;  // 0: dec_hidden
  set_attention_mode(a, c);
  return a;
}

}  // namespace

// Members are made in the reference's order of random draws: W_init, attention, the cell, W_o,
// W_out (the embedding before them, by the caller).
BahdanauDecoder::BahdanauDecoder(std::unique_ptr<Embedding> tgt_emb, const ModelConfig& config,
                                 std::int64_t annotation_dim, bool attend, Rng& rng, DType dtype)
    : emb_dim_(config.emb_dim),
      vocab_(config.tgt_vocab),
      tgt_emb_(std::move(tgt_emb)),
      W_init_(config.enc_hidden, config.dec_hidden, true, rng, dtype),
      attention_(attend ? std::make_unique<Attention>(additive(config, annotation_dim), rng, dtype)
                        : nullptr),
      cell_(RnnCell::gru, config.emb_dim + annotation_dim, config.dec_hidden, rng, dtype),
      W_o_(config.dec_hidden + annotation_dim + config.emb_dim, config.resolved_out_dim(), true,
           rng, dtype),
      W_out_(config.resolved_out_dim(), config.tgt_vocab, rng, dtype,
             config.tie_embeddings ? tgt_emb_->weight : Var()) {}

NamedModules BahdanauDecoder::modules() {
  NamedModules m{{"tgt_emb", tgt_emb_.get()}, {"W_init", &W_init_}};
  if (attention_) m.emplace_back("attention", attention_.get());
  m.insert(m.end(), {{"decoder", &cell_}, {"W_o", &W_o_}, {"W_out", &W_out_}});
  return m;
}

Var BahdanauDecoder::embed(std::span<const std::int32_t> ids, const Shape& shape,
                           const RunMode& mode) const {
  return maybe_dropout(tgt_emb_->forward(std::vector<std::int32_t>(ids.begin(), ids.end()), shape),
                       mode);
}

Encoded BahdanauDecoder::prepare(const EncoderOutput& enc, const RunMode& mode) const {
  Encoded out;
  out.lengths = enc.lengths;
  const int dirs = enc.directions, last = enc.layers - 1;
  Var h_back = enc.final_h(last, dirs - 1);  // <-h_1 (->h_m if unidirectional)
  if (attention_) {
    out.annotations = enc.annotations;
    out.keys = attention_->keys(enc.annotations, mode.precision);  // U_h h_j + b, once per batch
  } else {
    Var h_fwd = enc.final_h(last, 0);  // ->h_m
    out.fixed_context = dirs == 2 ? concat({h_fwd, h_back}, 1) : h_fwd;
  }
  out.initial.parts = {tanh(W_init_.forward(h_back, mode.precision))};
  if (attention_) append_attention_state(out.initial.parts, *attention_, out);  // alpha_0, c_1
  return out;
}

Var BahdanauDecoder::step(const Var& e, DecoderState& state, const Encoded& enc,
                          const RunMode& mode, Var* alpha) const {
  const Var& s_prev = state.parts[0];
  Var c = enc.fixed_context;
  if (attention_) {
    Attention::Output att = attend(*attention_, s_prev, state, 1, enc, mode);
    c = att.context;
    if (alpha) *alpha = att.alpha;
  }
  Var s = gru_cell(concat({e, c}, 1), s_prev, cell_.weight_ih, cell_.weight_hh, cell_.bias_ih,
                   cell_.bias_hh, {}, mode.precision);
  state.parts[0] = s;
  return concat({s, c, e}, 1);
}

Var BahdanauDecoder::pre_output(const Var& features, const RunMode& mode) const {
  return maybe_dropout(tanh(W_o_.forward(features, mode.precision)), mode);
}

// Attention on: fused/gru_additive_decoder runs the n steps as one op. The embedding block of
// the cell's input projection is one GEMM for all steps; the op adds the context block. Hard
// attention has no fused op: its steps sample (or take the argmax), so the step loop runs; nor
// have the location features and coverage (their key term changes every step).
std::optional<Var> BahdanauDecoder::accelerated(const Var& E, const Encoded& enc,
                                                const RunMode& mode, Tensor* alphas) const {
  if (!attention_ || attention_->config().hard || attention_->config().has_features() ||
      mode.attention)
    return std::nullopt;
  Var X =
      add_bias(linear_columns(E, cell_.weight_ih, 0, mode.precision), cell_.bias_ih);  // (B, n, 3H)
  GruAdditiveWeights w;
  w.w_ih = cell_.weight_ih;
  w.ctx_col = emb_dim_;
  w.w_hh = cell_.weight_hh;
  w.b_hh = cell_.bias_hh;
  w.W_q = attention_->weights().W;
  w.v = attention_->weights().v;
  w.precision = mode.precision;
  Var SC = gru_additive_decoder(X, enc.initial.parts[0], enc.annotations, enc.keys, enc.lengths, w,
                                alphas);
  return concat({SC, E}, 2);  // (B, n, H + dk + emb): [s_t; c_t; e(y_{t-1})]
}

void validate_gru_decoder_model(const ModelConfig& c) {
  const std::string_view kind = enum_name(c.kind);
  HEED_CHECK(c.dec_layers == 1, "model.dec_layers: ", kind, " has a single GRU decoder cell, got "
             "dec_layers = ", c.dec_layers);
  HEED_CHECK(!c.local_p, "model.local_p: local-p attention exists for luong only, not ", kind);
  check_location_features(c);
  if (c.tie_embeddings)
    HEED_CHECK(c.emb_dim == c.resolved_out_dim(), "model.tie_embeddings: the output layer "
               "W_out is (tgt_vocab, out_dim = ", c.resolved_out_dim(), "), the target "
               "embedding (tgt_vocab, emb_dim = ", c.emb_dim,
               "): set out_dim = emb_dim to tie them");
}

std::unique_ptr<Seq2Seq> make_gru_decoder_model(const ModelConfig& c, bool attend, Rng& rng,
                                                DType dtype) {
  return make_text_model(
      c, /*embedding_dropout=*/true,
      [&](std::unique_ptr<Embedding> tgt_emb, std::int64_t annotation_dim) {
        return std::make_unique<BahdanauDecoder>(std::move(tgt_emb), c, annotation_dim, attend,
                                                 rng, dtype);
      },
      rng, dtype);
}

}  // namespace heed
