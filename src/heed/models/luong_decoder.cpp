#include "heed/models/luong_decoder.h"

#include <cmath>

#include "heed/autograd/concat_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/lstm.h"
#include "heed/fused/lstm_dot_decoder.h"
#include "heed/models/decoder_attention.h"

namespace heed {
namespace {

AttentionConfig global(const ModelConfig& c, std::int64_t annotation_dim) {
  AttentionConfig a;
  a.score = c.score;
  a.query_dim = c.dec_hidden;
  a.key_dim = annotation_dim;
  a.attn_dim = c.attn_dim;  // 0: the query size
  a.max_src_len = c.max_src_len;
  a.local_p = c.local_p;
  a.window = c.local_p ? c.window : 0;
  set_attention_mode(a, c);
  return a;
}

}  // namespace

// Members are made in the reference's order of random draws: the cells, attention, W_c, W_s,
// then the bridges (the embedding before them, by the caller).
LuongDecoder::LuongDecoder(std::unique_ptr<Embedding> tgt_emb, const ModelConfig& config,
                           std::int64_t annotation_dim, Rng& rng, DType dtype)
    : layers_(static_cast<int>(config.dec_layers)),
      emb_dim_(config.emb_dim),
      hidden_(config.dec_hidden),
      vocab_(config.tgt_vocab),
      input_feed_(config.input_feed),
      tgt_emb_(std::move(tgt_emb)),
      cells_(RnnCell::lstm, config.emb_dim + (config.input_feed ? config.dec_hidden : 0),
             config.dec_hidden, static_cast<int>(config.dec_layers), rng, dtype),
      attention_(global(config, annotation_dim), rng, dtype),
      W_c_(annotation_dim + config.dec_hidden, config.dec_hidden, false, rng, dtype),
      W_s_(config.dec_hidden, config.tgt_vocab, rng, dtype,
           config.tie_embeddings ? tgt_emb_->weight : Var()) {
  if (config.bidirectional || config.enc_hidden != config.dec_hidden) {
    bridge_h_ = std::make_unique<Linear>(annotation_dim, hidden_, true, rng, dtype);
    bridge_c_ = std::make_unique<Linear>(annotation_dim, hidden_, true, rng, dtype);
  }
}

NamedModules LuongDecoder::modules() {
  NamedModules m{{"tgt_emb", tgt_emb_.get()}};
  if (bridge_h_) m.insert(m.end(), {{"bridge_h", bridge_h_.get()}, {"bridge_c", bridge_c_.get()}});
  m.insert(m.end(), {{"cells", &cells_}, {"attention", &attention_}, {"W_c", &W_c_}, {"W_s", &W_s_}});
  return m;
}

Var LuongDecoder::embed(std::span<const std::int32_t> ids, const Shape& shape,
                        const RunMode&) const {
  return tgt_emb_->forward(std::vector<std::int32_t>(ids.begin(), ids.end()), shape);
}

Encoded LuongDecoder::prepare(const EncoderOutput& enc, const RunMode& mode) const {
  Encoded out;
  out.annotations = enc.annotations;
  out.keys = attention_.keys(enc.annotations, mode.precision);
  out.lengths = enc.lengths;
  std::vector<Var> hs, cs;
  for (int l = 0; l < layers_; ++l) {
    Var h = enc.final_h(l, 0), c = enc.final_c(l, 0);
    if (enc.directions == 2) {  // [->; <-] of layer l
      h = concat({h, enc.final_h(l, 1)}, 1);
      c = concat({c, enc.final_c(l, 1)}, 1);
    }
    if (bridge_h_) {
      h = bridge_h_->forward(h, mode.precision);
      c = bridge_c_->forward(c, mode.precision);
    }
    hs.push_back(h);
    cs.push_back(c);
  }
  out.initial.parts = hs;
  out.initial.parts.insert(out.initial.parts.end(), cs.begin(), cs.end());
  const std::int64_t B = enc.annotations.dim(0);
  out.initial.parts.push_back(Var(Tensor::zeros({B, hidden_}, enc.annotations.dtype())));  // h~_0
  append_attention_state(out.initial.parts, attention_, out);  // alpha_0 (and c_1)
  return out;
}

Var LuongDecoder::step(const Var& e, DecoderState& state, const Encoded& enc, const RunMode& mode,
                       Var* alpha) const {
  const auto L = static_cast<std::size_t>(layers_);
  Var x = input_feed_ ? concat({e, state.parts[2 * L]}, 1) : e;
  for (std::size_t l = 0; l < L; ++l) {
    const RecurrentCell& cell = cells_[l];
    if (l > 0) x = maybe_dropout(x, mode);  // between the layers
    LstmState st = lstm_cell(x, {state.parts[l], state.parts[L + l]}, cell.weight_ih,
                             cell.weight_hh, cell.bias_ih, cell.bias_hh, {}, mode.precision);
    state.parts[l] = st.h;
    state.parts[L + l] = st.c;
    x = st.h;
  }
  Attention::Output att = attend(attention_, x, state, 2 * L + 1, enc, mode);
  if (alpha) *alpha = att.alpha;
  Var h_tilde = tanh(W_c_.forward(concat({att.context, x}, 1), mode.precision));
  state.parts[2 * L] = h_tilde;
  return h_tilde;
}

Var LuongDecoder::pre_output(const Var& features, const RunMode& mode) const {
  (void)mode;
  return features;
}

// fused/lstm_dot_decoder runs the n steps as one op for global attention with a score whose
// registry entry is fused (of the dot form: dot, scaled_dot, general), soft attention and no
// dropout between the decoder's layers (hard attention samples or takes the argmax at each step:
// the step loop runs). Layer 0's embedding block of the input projection is one GEMM for all
// steps.
std::optional<Var> LuongDecoder::accelerated(const Var& E, const Encoded& enc, const RunMode& mode,
                                             Tensor* alphas) const {
  const ScoreSpec& score = score_spec(attention_.score());
  const bool layer_dropout = mode.training && mode.dropout > 0 && layers_ > 1;
  if (!score.fused || attention_.config().local_p || attention_.config().hard || layer_dropout ||
      mode.attention)
    return std::nullopt;
  const RecurrentCell& cell0 = cells_[0];
  Var X =
      add_bias(linear_columns(E, cell0.weight_ih, 0, mode.precision), cell0.bias_ih);  // (B, n, 4H)
  const auto L = static_cast<std::size_t>(layers_);
  const auto& init = enc.initial.parts;
  std::vector<Var> hs(init.begin(), init.begin() + layers_);
  std::vector<Var> cs(init.begin() + layers_, init.begin() + 2 * layers_);
  LstmDotWeights w;
  for (std::size_t l = 0; l < L; ++l) {
    const RecurrentCell& cell = cells_[l];
    w.layers.push_back({cell.weight_ih, cell.weight_hh, l == 0 ? Var() : cell.bias_ih,
                        cell.bias_hh});
  }
  w.input_feed = input_feed_;
  w.feed_col = emb_dim_;
  w.W_c = W_c_.weight;
  w.precision = mode.precision;
  w.scale = score.scaled ? 1.0 / std::sqrt(static_cast<double>(hidden_)) : 1.0;
  return lstm_dot_decoder(X, hs, cs, enc.annotations, enc.keys, enc.lengths, w, alphas);
}

}  // namespace heed
