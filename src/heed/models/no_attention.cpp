#include "heed/models/no_attention.h"

#include "heed/autograd/attention.h"
#include "heed/autograd/concat.h"
#include "heed/autograd/elementwise.h"
#include "heed/autograd/gru.h"
#include "heed/autograd/index.h"
#include "heed/models/model_detail.h"
#include "heed/models/model_factory.h"

namespace heed {
namespace {

const ModelConfig& checked(const ModelConfig& c) {
  HEED_CHECK(c.kind == "noattn", "NoAttention: config kind is '", c.kind, "'");
  validate_model_config(c);
  return c;
}

constexpr const char* kName = "noattn";

}  // namespace

using namespace model_detail;

NoAttention::NoAttention(const ModelConfig& config, Rng& rng, DType dtype)
    : Seq2Seq(checked(config)),
      emb_dim_(config.emb_dim),
      src_emb_(config.src_vocab, config.emb_dim, kPad, rng, dtype),
      tgt_emb_(config.tgt_vocab, config.emb_dim, kPad, rng, dtype),
      encoder_(rnn_cell_from_name(config.resolved_encoder_cell()), config.emb_dim,
               config.enc_hidden, static_cast<int>(config.enc_layers), config.bidirectional, rng,
               dtype),
      W_init_(config.enc_hidden, config.dec_hidden, true, rng, dtype),
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
  register_module("decoder", decoder_);
  register_module("W_o", W_o_);
  register_module("W_out", W_out_);
}

Encoded NoAttention::encode(const TokenBatch& src) const {
  check_token_batch(src, config_.src_vocab, "noattn source");
  const double p = config_.dropout;
  Var x = maybe_dropout(src_emb_.forward(src.ids, {src.batch, src.len}), p, training(), rng(),
                        kName);
  RnnSequenceOutput r = encoder_.forward(x, to_int32(src.lengths), p, training(), rng());
  const int dirs = encoder_.directions(), last = encoder_.layers() - 1;
  Var h_fwd = final_state(r.h_n, last, 0, dirs);       // ->h_m
  Var h_back = final_state(r.h_n, last, dirs - 1, dirs);  // <-h_1 (->h_m if unidirectional)
  Encoded enc;
  enc.fixed_context = dirs == 2 ? concat({h_fwd, h_back}, 1) : h_fwd;
  enc.lengths = src.lengths;
  enc.initial.parts = {tanh(W_init_.forward(h_back))};
  return enc;
}

DecoderState NoAttention::initial_state(const Encoded& enc) const { return enc.initial; }

Var NoAttention::deep_output(const Var& s, const Var& c, const Var& e) const {
  const int last = static_cast<int>(s.value().ndim()) - 1;
  Var o = tanh(W_o_.forward(concat({s, c, e}, last)));
  return W_out_.forward(maybe_dropout(o, config_.dropout, training(), rng(), kName));
}

StepOutput NoAttention::step(std::span<const std::int32_t> y_prev, DecoderState& state,
                             const Encoded& enc) const {
  check_step(y_prev, state, 1, enc, config_.tgt_vocab, kName);
  const auto B = static_cast<std::int64_t>(y_prev.size());
  Var e = maybe_dropout(
      tgt_emb_.forward(std::vector<std::int32_t>(y_prev.begin(), y_prev.end()), {B}),
      config_.dropout, training(), rng(), kName);
  const Var& c = enc.fixed_context;
  Var s = gru_cell(concat({e, c}, 1), state.parts[0], decoder_.weight_ih, decoder_.weight_hh,
                   decoder_.bias_ih, decoder_.bias_hh);
  state.parts[0] = s;
  return {deep_output(s, c, e), Var()};
}

Var NoAttention::forward(const TokenBatch& src, const TokenBatch& tgt_in, Tensor* alphas) const {
  Encoded enc = encode(src);
  check_target(tgt_in, src.batch, config_.tgt_vocab, kName);
  if (alphas) *alphas = Tensor();
  const std::int64_t B = tgt_in.batch, n = tgt_in.len;
  const Var& c = enc.fixed_context;
  // The embedding block of the decoder's input projection for all steps in one GEMM, the
  // context block once (c is the same at every step).
  Var E = maybe_dropout(tgt_emb_.forward(tgt_in.ids, {B, n}), config_.dropout, training(), rng(),
                        kName);
  Var X = add_bias(linear_columns(E, decoder_.weight_ih, 0), decoder_.bias_ih);  // (B, n, 3H)
  Var Xc = linear_columns(c, decoder_.weight_ih, emb_dim_);                      // (B, 3H)
  Var s = enc.initial.parts[0];
  std::vector<Var> states;
  states.reserve(static_cast<std::size_t>(n));
  for (std::int64_t t = 0; t < n; ++t) {
    s = gru_step(add(select(X, 1, t), Xc), s, decoder_.weight_hh, decoder_.bias_hh);
    states.push_back(s);
  }
  const std::vector<Var> cs(static_cast<std::size_t>(n), c);
  Var logits = deep_output(stack(states, 1), stack(cs, 1), E);  // (B, n, V)
  return reshape(logits, {B * n, config_.tgt_vocab});
}

}  // namespace heed
