#include "heed/models/encoder_decoder.h"

#include <cmath>

#include "heed/autograd/concat_op.h"
#include "heed/autograd/copy_loss_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/index.h"
#include "heed/autograd/softmax_op.h"
#include "heed/autograd/tape.h"
#include "heed/models/call_checks.h"
#include "heed/models/model_registry.h"
#include "heed/models/pointer_generator.h"
#include "heed/models/text_encoder.h"

namespace heed {
namespace {

// (B, n, m) buffer for teacher-forced attention weights, and row t of it from alpha (B, m).
Tensor alloc_alphas(std::int64_t B, std::int64_t n, std::int64_t m, DType dtype) {
  return Tensor::zeros({B, n, m}, dtype);
}

void store_alpha(Tensor& alphas, const Var& alpha, std::int64_t t) {
  alphas.select(1, t).copy_from(alpha.value());
}

}  // namespace

EncoderDecoder::EncoderDecoder(const ModelConfig& config, std::unique_ptr<Encoder> encoder,
                               std::unique_ptr<Decoder> decoder,
                               std::unique_ptr<Linear> copy_gate)
    : Seq2Seq(config),
      name_(enum_name(config.kind)),
      encoder_(std::move(encoder)),
      decoder_(std::move(decoder)),
      copy_gate_(std::move(copy_gate)) {
  HEED_CHECK((copy_gate_ != nullptr) == config.copy, name_, ": model.copy is ", config.copy,
             " but the model was built ", copy_gate_ ? "with" : "without", " a copy gate");
  const NamedModules enc = encoder_->modules(), dec = decoder_->modules();
  HEED_CHECK(!enc.empty() && !dec.empty(), name_, ": an encoder or decoder without parameters");
  register_module(enc[0].first, *enc[0].second);
  if (dec[0].second) register_module(dec[0].first, *dec[0].second);  // null: src_emb is shared
  for (std::size_t i = 1; i < enc.size(); ++i) register_module(enc[i].first, *enc[i].second);
  for (std::size_t i = 1; i < dec.size(); ++i) register_module(dec[i].first, *dec[i].second);
  if (copy_gate_) {
    HEED_CHECK(decoder_->has_attention() && copy_gate_->in_features() == decoder_->feature_dim(),
               name_, ": the copy gate reads ", copy_gate_->in_features(), " features of a decoder "
               "that has ", decoder_->feature_dim(), decoder_->has_attention() ? "" : " and no attention");
    register_module("p_gen", *copy_gate_);
  }
}

Encoded EncoderDecoder::encode(const TokenBatch& src) const { return encode(src, mode()); }

Tensor EncoderDecoder::ctc_logits(const TokenBatch& src) const {
  if (config_.listener.ctc_weight <= 0) return {};  // no head: nothing to encode for
  Var z;
  RunMode m = mode();
  m.ctc_logits = &z;
  (void)encoder_->encode(src, m);
  return z.defined() ? z.value() : Tensor();
}

Encoded EncoderDecoder::encode(const TokenBatch& src, const RunMode& m) const {
  // An image or speech source's placeholder ids are no tokens: the encoder checks its input.
  if (!src.images.defined() && !src.frames.defined())
    check_token_batch(src, config_.src_vocab, (name_ + " source").c_str());
  if (copy_gate_) check_copy_source(src, config_.tgt_vocab, name_.c_str());
  Encoded enc = decoder_->prepare(encoder_->encode(src, m), m);
  if (copy_gate_) {
    enc.copy_ids = src.copy_ids;
    enc.extended = src.extended;
  }
  if (!src.shortlist.empty())
    enc.shortlist = std::make_shared<const OutputShortlist>(
        gather_shortlist(decoder_->output_layer(), src.shortlist, (name_ + " source").c_str()));
  return enc;
}

StepOutput EncoderDecoder::step(std::span<const std::int32_t> y_prev, DecoderState& state,
                                const Encoded& enc) const {
  if (copy_gate_) return copy_step(y_prev, state, enc);
  check_step(y_prev, state, decoder_->state_parts(), enc, config_.tgt_vocab, name_.c_str());
  const RunMode m = mode();
  Var e = decoder_->embed(y_prev, {static_cast<std::int64_t>(y_prev.size())}, m);
  StepOutput out;
  Var features = decoder_->step(e, state, enc, m, decoder_->has_attention() ? &out.alpha : nullptr);
  if (enc.shortlist) {  // the K columns only (StepOutput::shortlist)
    out.logits = Var(shortlist_rows(*enc.shortlist, decoder_->pre_output(features, m), m.precision));
    out.shortlist = enc.shortlist;
  } else {
    out.logits = decoder_->output(features, m);
  }
  return out;
}

StepOutput EncoderDecoder::copy_step(std::span<const std::int32_t> y_prev, DecoderState& state,
                                     const Encoded& enc) const {
  // An extended id (a copied source word) is read back as UNK: it has no embedding.
  std::vector<std::int32_t> y(y_prev.begin(), y_prev.end());
  for (std::int32_t& v : y)
    if (v >= config_.tgt_vocab && v < config_.tgt_vocab + enc.extended) v = kUnk;
  check_step(y, state, decoder_->state_parts(), enc, config_.tgt_vocab, name_.c_str());
  HEED_CHECK(enc.copy_ids.size() == enc.lengths.size() * static_cast<std::size_t>(enc.annotations.dim(1)),
             name_, ": the encoding carries no copy map (encode a source with TokenBatch::copy_ids)");
  const RunMode m = mode();
  Var e = decoder_->embed(y, {static_cast<std::int64_t>(y.size())}, m);
  StepOutput out;
  Var features = decoder_->step(e, state, enc, m, &out.alpha);
  const Var gate = copy_gate_logit(*copy_gate_, features, m.precision);
  out.p_gen = sigmoid(gate);
  out.logits = Var(copy_log_probs(logits(features, enc, m).value(), gate.value(),
                                  out.alpha.value(), enc.copy_ids, enc.extended));
  return out;
}

Var EncoderDecoder::logits(const Var& features, const Encoded& enc, const RunMode& m) const {
  if (!enc.shortlist) return decoder_->output(features, m);
  return shortlist_logits(*enc.shortlist, decoder_->pre_output(features, m), m.precision);
}

Var EncoderDecoder::features(const TokenBatch& src, const TokenBatch& tgt_in, Tensor* alphas,
                             const RunMode& m) const {
  Encoded enc = encode(src, m);
  check_target(tgt_in, src.batch, config_.tgt_vocab, name_.c_str());
  const std::int64_t B = tgt_in.batch, n = tgt_in.len;
  Var E = decoder_->embed(tgt_in.ids, {B, n}, m);  // e(y_{t-1}) for every step at once
  if (!decoder_->has_attention()) alphas = nullptr;
  // The attention trace needs every step's weights on the tape: the step loop gives them,
  // and the accelerations that can.
  std::vector<Var>* trace = decoder_->has_attention() ? m.attention : nullptr;
  if (accelerations_)
    if (std::optional<Var> F = decoder_->accelerated(E, enc, m, alphas)) return *F;
  if (alphas) *alphas = alloc_alphas(B, n, src.len, E.dtype());
  DecoderState state = enc.initial;
  std::vector<Var> F;
  F.reserve(static_cast<std::size_t>(n));
  for (std::int64_t t = 0; t < n; ++t) {
    Var alpha;
    F.push_back(decoder_->step(select(E, 1, t), state, enc, m, alphas || trace ? &alpha : nullptr));
    if (alphas) store_alpha(*alphas, alpha, t);
    if (trace) trace->push_back(alpha);
  }
  return stack(F, 1);
}

Var EncoderDecoder::forward(const TokenBatch& src, const TokenBatch& tgt_in,
                            Tensor* alphas) const {
  if (alphas && !decoder_->has_attention()) *alphas = Tensor();
  const RunMode m = mode();
  // The output layer over all B * n rows at once.
  Var logits = decoder_->output(features(src, tgt_in, alphas, m), m);  // (B, n, V)
  return reshape(logits, {tgt_in.batch * tgt_in.len, config_.tgt_vocab});
}

Var EncoderDecoder::forward_packed(const TokenBatch& src, const TokenBatch& tgt_in) const {
  RunMode m = mode();
  m.target_lengths = &tgt_in.lengths;  // only the real positions are read: skip the padding
  return decoder_->output(gather_rows(features(src, tgt_in, nullptr, m), target_rows(tgt_in)), m);
}

CopyOutputs EncoderDecoder::forward_copy(const TokenBatch& src, const TokenBatch& tgt_in) const {
  HEED_CHECK(copy_gate_ != nullptr, name_, ": forward_copy: model.copy is false");
  // The step loop, recording each step's attention weights with their gradient (the loss
  // reads them; the fused decoders keep them off the tape).
  RunMode m = mode();
  std::vector<Var>* trace = m.attention;  // a trace the trainer asked for (the coverage loss)
  std::vector<Var> alphas;
  m.attention = &alphas;
  const std::vector<std::int64_t> rows = target_rows(tgt_in);
  Var F = gather_rows(features(src, tgt_in, nullptr, m), rows);
  if (trace) trace->insert(trace->end(), alphas.begin(), alphas.end());
  CopyOutputs out;
  out.logits = decoder_->output(F, m);
  out.gate = copy_gate_logit(*copy_gate_, F, m.precision);
  out.alpha = gather_rows(stack(alphas, 1), rows);
  return out;
}

AttentionHeads EncoderDecoder::attention_heads(const TokenBatch& src,
                                               const TokenBatch& tgt_in) const {
  const RunMode m = mode();
  Encoded enc = encode(src, m);
  check_target(tgt_in, src.batch, config_.tgt_vocab, name_.c_str());
  AttentionHeads heads = decoder_->attention_heads(
      decoder_->embed(tgt_in.ids, {tgt_in.batch, tgt_in.len}, m), enc, m);
  if (!heads.empty()) heads.encoder_self = encoder_->attention_heads(src, m);
  return heads;
}

Saliency EncoderDecoder::saliency(const TokenBatch& src, const TokenBatch& tgt_in,
                                  std::span<const std::int32_t> tgt_out) const {
  HEED_CHECK(grad_enabled(), name_, ": saliency needs gradients (it runs under a NoGradGuard)");
  const std::int64_t B = tgt_in.batch, n = tgt_in.len, m = src.len;
  HEED_CHECK(static_cast<std::int64_t>(tgt_out.size()) == B * n, name_, ": saliency: ",
             tgt_out.size(), " targets for a ", B, " x ", n, " batch");
  Saliency s;
  s.norm.assign(static_cast<std::size_t>(B * n * m), 0.0);
  s.grad_x_input.assign(s.norm.size(), 0.0);
  const std::vector<Var> params = parameters();
  for (std::int64_t t = 0; t < n; ++t) {
    std::vector<std::int64_t> rows;  // the sentences that have a target at position t
    for (std::int64_t b = 0; b < B; ++b)
      if (t < tgt_in.lengths[static_cast<std::size_t>(b)]) rows.push_back(b * n + t);
    if (rows.empty()) continue;
    // A fresh teacher-forced pass per position (backward consumes the tape): the embedded
    // source X, the log-probabilities at t, and d(sum_b log p(y_t^b)) / dX by one backward
    // with a one-hot seed (the sentences do not interact, so one pass serves the batch).
    RunMode md = mode();
    Var X;
    md.source_embeddings = &X;
    Var logp = log_softmax(decoder_->output(gather_rows(features(src, tgt_in, nullptr, md), rows), md));
    Tensor seed = Tensor::zeros(logp.value().shape(), logp.dtype());
    for (std::size_t r = 0; r < rows.size(); ++r)
      seed.set({static_cast<std::int64_t>(r), tgt_out[static_cast<std::size_t>(rows[r])]}, 1.0);
    Tape::current().backward(logp, seed);
    HEED_CHECK(X.defined() && X.has_grad(), name_, ": saliency: no gradient reached the source embeddings");
    const Tensor& g = X.grad();
    const Tensor& x = X.value();
    const std::int64_t E = x.dim(2);
    for (std::int64_t row : rows) {
      const std::int64_t b = row / n;
      for (std::int64_t j = 0; j < src.lengths[static_cast<std::size_t>(b)]; ++j) {
        double sq = 0, dot = 0;
        for (std::int64_t e = 0; e < E; ++e) {
          const double gv = g.at({b, j, e});
          sq += gv * gv;
          dot += gv * x.at({b, j, e});
        }
        const auto at = static_cast<std::size_t>((b * n + t) * m + j);
        s.norm[at] = std::sqrt(sq);
        s.grad_x_input[at] = dot;
      }
    }
    for (const Var& p : params) p.clear_grad();
  }
  return s;
}

std::unique_ptr<Seq2Seq> make_text_model(const ModelConfig& config, bool embedding_dropout,
                                         const DecoderMaker& make_decoder, Rng& rng, DType dtype) {
  auto src_emb = std::make_unique<Embedding>(config.src_vocab, config.emb_dim, kPad, rng, dtype);
  auto tgt_emb = std::make_unique<Embedding>(config.tgt_vocab, config.emb_dim, kPad, rng, dtype);
  TextEncoderShape shape;
  shape.cell = encoder_cell(config);
  shape.hidden = config.enc_hidden;
  shape.layers = static_cast<int>(config.enc_layers);
  shape.bidirectional = config.bidirectional;
  shape.embedding_dropout = embedding_dropout;
  auto encoder = std::make_unique<TextEncoder>(std::move(src_emb), shape, rng, dtype);
  auto decoder = make_decoder(std::move(tgt_emb), encoder->output_dim());
  // Copy attention's gate, drawn last (the reference creates it after the decoder).
  std::unique_ptr<Linear> gate =
      config.copy ? make_copy_gate(decoder->feature_dim(), rng, dtype) : nullptr;
  return std::make_unique<EncoderDecoder>(config, std::move(encoder), std::move(decoder),
                                          std::move(gate));
}

}  // namespace heed
