#include "heed/models/luong.h"

#include <cmath>

#include "heed/autograd/concat.h"
#include "heed/autograd/elementwise.h"
#include "heed/autograd/index.h"
#include "heed/autograd/lstm.h"
#include "heed/autograd/luong_decoder.h"
#include "heed/autograd/matmul.h"
#include "heed/models/model_detail.h"
#include "heed/models/model_factory.h"

namespace heed {
namespace {

const ModelConfig& checked(const ModelConfig& c) {
  HEED_CHECK(c.kind == "luong", "Luong: config kind is '", c.kind, "'");
  validate_model_config(c);
  return c;
}

AttentionConfig global(const ModelConfig& c) {
  AttentionConfig a;
  a.score = c.score;
  a.query_dim = c.dec_hidden;
  a.key_dim = c.enc_hidden * (c.bidirectional ? 2 : 1);
  a.attn_dim = c.attn_dim;  // 0: the query size, as the reference
  a.max_src_len = c.max_src_len;
  a.local_p = c.local_p;
  a.window = c.local_p ? c.window : 0;
  return a;
}

bool needs_bridge(const ModelConfig& c) { return c.bidirectional || c.enc_hidden != c.dec_hidden; }

constexpr const char* kName = "luong";

}  // namespace

using namespace model_detail;

Luong::Luong(const ModelConfig& config, Rng& rng, DType dtype)
    : Seq2Seq(checked(config)),
      layers_(static_cast<int>(config.dec_layers)),
      emb_dim_(config.emb_dim),
      hidden_(config.dec_hidden),
      input_feed_(config.input_feed),
      src_emb_(config.src_vocab, config.emb_dim, kPad, rng, dtype),
      tgt_emb_(config.tgt_vocab, config.emb_dim, kPad, rng, dtype),
      encoder_(RnnCell::lstm, config.emb_dim, config.enc_hidden,
               static_cast<int>(config.enc_layers), config.bidirectional, rng, dtype),
      cells_(RnnCell::lstm, config.emb_dim + (config.input_feed ? config.dec_hidden : 0),
             config.dec_hidden, static_cast<int>(config.dec_layers), rng, dtype),
      attention_(global(config), rng, dtype),
      W_c_(encoder_.output_dim() + config.dec_hidden, config.dec_hidden, false, rng, dtype),
      W_s_(config.dec_hidden, config.tgt_vocab, rng, dtype,
           config.tie_embeddings ? tgt_emb_.weight : Var()) {
  register_module("src_emb", src_emb_);
  register_module("tgt_emb", tgt_emb_);
  register_module("encoder", encoder_);
  if (needs_bridge(config)) {
    bridge_h_ = std::make_unique<Linear>(encoder_.output_dim(), hidden_, true, rng, dtype);
    bridge_c_ = std::make_unique<Linear>(encoder_.output_dim(), hidden_, true, rng, dtype);
    register_module("bridge_h", *bridge_h_);
    register_module("bridge_c", *bridge_c_);
  }
  register_module("cells", cells_);
  register_module("attention", attention_);
  register_module("W_c", W_c_);
  register_module("W_s", W_s_);
}

Encoded Luong::encode(const TokenBatch& src) const {
  check_token_batch(src, config_.src_vocab, "luong source");
  Var x = src_emb_.forward(src.ids, {src.batch, src.len});
  RnnSequenceOutput r =
      encoder_.forward(x, to_int32(src.lengths), config_.dropout, training(), rng());
  Encoded enc;
  enc.annotations = r.output;
  enc.keys = attention_.keys(enc.annotations);
  enc.lengths = src.lengths;
  const int dirs = encoder_.directions();
  std::vector<Var> hs, cs;
  for (int l = 0; l < layers_; ++l) {
    Var h = final_state(r.h_n, l, 0, dirs), c = final_state(r.c_n, l, 0, dirs);
    if (dirs == 2) {  // [->; <-] of layer l
      h = concat({h, final_state(r.h_n, l, 1, dirs)}, 1);
      c = concat({c, final_state(r.c_n, l, 1, dirs)}, 1);
    }
    if (bridge_h_) {
      h = bridge_h_->forward(h);
      c = bridge_c_->forward(c);
    }
    hs.push_back(h);
    cs.push_back(c);
  }
  enc.initial.parts = hs;
  enc.initial.parts.insert(enc.initial.parts.end(), cs.begin(), cs.end());
  enc.initial.parts.push_back(Var(Tensor::zeros({src.batch, hidden_}, x.dtype())));  // h~_0
  return enc;
}

DecoderState Luong::initial_state(const Encoded& enc) const { return enc.initial; }

Var Luong::upper_layers(Var x, std::vector<Var>& hs, std::vector<Var>& cs) const {
  for (int l = 1; l < layers_; ++l) {
    const RecurrentCell& cell = cells_[static_cast<std::size_t>(l)];
    x = maybe_dropout(x, config_.dropout, training(), rng(), kName);
    LstmState st = lstm_cell(x, {hs[l], cs[l]}, cell.weight_ih, cell.weight_hh, cell.bias_ih,
                             cell.bias_hh);
    hs[l] = st.h;
    cs[l] = st.c;
    x = st.h;
  }
  return x;
}

bool Luong::fused_decoder_applies() const {
  const AttentionScore score = attention_.score();
  const bool dot_score = score == AttentionScore::dot || score == AttentionScore::scaled_dot ||
                         score == AttentionScore::general;
  const bool layer_dropout = training() && config_.dropout > 0 && layers_ > 1;
  return dot_score && !config_.local_p && !attention_.config().hard && !layer_dropout;
}

Var Luong::attentional(const Var& context, const Var& h) const {
  const int last = static_cast<int>(h.value().ndim()) - 1;
  return tanh(W_c_.forward(concat({context, h}, last)));
}

StepOutput Luong::step(std::span<const std::int32_t> y_prev, DecoderState& state,
                       const Encoded& enc) const {
  const auto L = static_cast<std::size_t>(layers_);
  check_step(y_prev, state, 2 * L + 1, enc, config_.tgt_vocab, kName);
  const auto B = static_cast<std::int64_t>(y_prev.size());
  std::vector<Var> hs(state.parts.begin(), state.parts.begin() + layers_);
  std::vector<Var> cs(state.parts.begin() + layers_, state.parts.begin() + 2 * layers_);
  Var e = tgt_emb_.forward(std::vector<std::int32_t>(y_prev.begin(), y_prev.end()), {B});
  Var x = input_feed_ ? concat({e, state.parts[2 * L]}, 1) : e;
  const RecurrentCell& cell0 = cells_[0];
  LstmState st = lstm_cell(x, {hs[0], cs[0]}, cell0.weight_ih, cell0.weight_hh, cell0.bias_ih,
                           cell0.bias_hh);
  hs[0] = st.h;
  cs[0] = st.c;
  Var h = upper_layers(st.h, hs, cs);
  Attention::Output att = attention_.forward(h, enc.annotations, enc.keys, enc.lengths);
  Var h_tilde = attentional(att.context, h);
  for (std::size_t l = 0; l < L; ++l) {
    state.parts[l] = hs[l];
    state.parts[L + l] = cs[l];
  }
  state.parts[2 * L] = h_tilde;
  return {W_s_.forward(h_tilde), att.alpha};
}

Var Luong::forward(const TokenBatch& src, const TokenBatch& tgt_in, Tensor* alphas) const {
  return reshape(W_s_.forward(attentional_states(src, tgt_in, alphas)),
                 {tgt_in.batch * tgt_in.len, config_.tgt_vocab});
}

Var Luong::forward_packed(const TokenBatch& src, const TokenBatch& tgt_in) const {
  return W_s_.forward(gather_rows(attentional_states(src, tgt_in, nullptr), target_rows(tgt_in)));
}

Var Luong::attentional_states(const TokenBatch& src, const TokenBatch& tgt_in,
                              Tensor* alphas) const {
  Encoded enc = encode(src);
  check_target(tgt_in, src.batch, config_.tgt_vocab, kName);
  const std::int64_t B = tgt_in.batch, n = tgt_in.len;
  const RecurrentCell& cell0 = cells_[0];
  // Layer 0's input projection: the embedding block of W_ih for all steps in one GEMM; with
  // input feeding the h~ block is added per step (h~_0 = 0 adds nothing).
  Var E = tgt_emb_.forward(tgt_in.ids, {B, n});
  Var X = add_bias(linear_columns(E, cell0.weight_ih, 0), cell0.bias_ih);  // (B, n, 4H)
  std::vector<Var> hs(enc.initial.parts.begin(), enc.initial.parts.begin() + layers_);
  std::vector<Var> cs(enc.initial.parts.begin() + layers_, enc.initial.parts.begin() + 2 * layers_);
  if (fused_decoder_applies()) {
    // The whole recurrence as one op (autograd/luong_decoder.h).
    LuongDecoderWeights w;
    for (int l = 0; l < layers_; ++l) {
      const RecurrentCell& cell = cells_[static_cast<std::size_t>(l)];
      w.layers.push_back({cell.weight_ih, cell.weight_hh, l == 0 ? Var() : cell.bias_ih,
                          cell.bias_hh});
    }
    w.input_feed = input_feed_;
    w.feed_col = emb_dim_;
    w.W_c = W_c_.weight;
    w.scale = attention_.score() == AttentionScore::scaled_dot
                  ? 1.0 / std::sqrt(static_cast<double>(hidden_))
                  : 1.0;
    return luong_decoder(X, hs, cs, enc.annotations, enc.keys, enc.lengths, w, alphas);
  }
  if (alphas) *alphas = alloc_alphas(B, n, src.len, E.dtype());
  Var h_tilde;
  std::vector<Var> outs, tops, contexts;  // h~_t (input feeding), else h_t and c_t
  for (std::int64_t t = 0; t < n; ++t) {
    Var x = select(X, 1, t);
    if (input_feed_ && t > 0) x = add(x, linear_columns(h_tilde, cell0.weight_ih, emb_dim_));
    LstmState st = lstm_step(x, {hs[0], cs[0]}, cell0.weight_hh, cell0.bias_hh);
    hs[0] = st.h;
    cs[0] = st.c;
    Var h = upper_layers(st.h, hs, cs);
    Attention::Output att = attention_.forward(h, enc.annotations, enc.keys, enc.lengths);
    if (alphas) store_alpha(*alphas, att.alpha, t);
    if (input_feed_) {
      h_tilde = attentional(att.context, h);
      outs.push_back(h_tilde);
    } else {
      tops.push_back(h);
      contexts.push_back(att.context);
    }
  }
  // Without input feeding nothing recurrent reads h~, so W_c runs once over all B * n rows.
  return input_feed_ ? stack(outs, 1) : attentional(stack(contexts, 1), stack(tops, 1));
}

}  // namespace heed
