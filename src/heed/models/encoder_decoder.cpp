#include "heed/models/encoder_decoder.h"

#include "heed/autograd/concat_op.h"
#include "heed/autograd/index.h"
#include "heed/models/model_detail.h"
#include "heed/models/model_registry.h"
#include "heed/models/text_encoder.h"

namespace heed {

using namespace model_detail;

EncoderDecoder::EncoderDecoder(const ModelConfig& config, std::unique_ptr<Encoder> encoder,
                               std::unique_ptr<Decoder> decoder)
    : Seq2Seq(config),
      name_(enum_name(config.kind)),
      encoder_(std::move(encoder)),
      decoder_(std::move(decoder)) {
  const NamedModules enc = encoder_->modules(), dec = decoder_->modules();
  HEED_CHECK(!enc.empty() && !dec.empty(), name_, ": an encoder or decoder without parameters");
  register_module(enc[0].first, *enc[0].second);
  register_module(dec[0].first, *dec[0].second);
  for (std::size_t i = 1; i < enc.size(); ++i) register_module(enc[i].first, *enc[i].second);
  for (std::size_t i = 1; i < dec.size(); ++i) register_module(dec[i].first, *dec[i].second);
}

Encoded EncoderDecoder::encode(const TokenBatch& src) const { return encode(src, mode()); }

Encoded EncoderDecoder::encode(const TokenBatch& src, const RunMode& m) const {
  check_token_batch(src, config_.src_vocab, (name_ + " source").c_str());
  return decoder_->prepare(encoder_->encode(src, m), m);
}

StepOutput EncoderDecoder::step(std::span<const std::int32_t> y_prev, DecoderState& state,
                                const Encoded& enc) const {
  check_step(y_prev, state, decoder_->state_parts(), enc, config_.tgt_vocab, name_.c_str());
  const RunMode m = mode();
  Var e = decoder_->embed(y_prev, {static_cast<std::int64_t>(y_prev.size())}, m);
  StepOutput out;
  Var features = decoder_->step(e, state, enc, m, decoder_->has_attention() ? &out.alpha : nullptr);
  out.logits = decoder_->output(features, m);
  return out;
}

Var EncoderDecoder::features(const TokenBatch& src, const TokenBatch& tgt_in, Tensor* alphas,
                             const RunMode& m) const {
  Encoded enc = encode(src, m);
  check_target(tgt_in, src.batch, config_.tgt_vocab, name_.c_str());
  const std::int64_t B = tgt_in.batch, n = tgt_in.len;
  Var E = decoder_->embed(tgt_in.ids, {B, n}, m);  // e(y_{t-1}) for every step at once
  if (!decoder_->has_attention()) alphas = nullptr;
  if (accelerations_)
    if (std::optional<Var> F = decoder_->accelerated(E, enc, m, alphas)) return *F;
  if (alphas) *alphas = alloc_alphas(B, n, src.len, E.dtype());
  DecoderState state = enc.initial;
  std::vector<Var> F;
  F.reserve(static_cast<std::size_t>(n));
  for (std::int64_t t = 0; t < n; ++t) {
    Var alpha;
    F.push_back(decoder_->step(select(E, 1, t), state, enc, m, alphas ? &alpha : nullptr));
    if (alphas) store_alpha(*alphas, alpha, t);
  }
  return stack(F, 1);
}

Var EncoderDecoder::forward(const TokenBatch& src, const TokenBatch& tgt_in, Tensor* alphas,
                            kernels::MatmulPrecision precision) const {
  if (alphas && !decoder_->has_attention()) *alphas = Tensor();
  const RunMode m = mode(precision);
  // The output layer over all B * n rows at once.
  Var logits = decoder_->output(features(src, tgt_in, alphas, m), m);  // (B, n, V)
  return reshape(logits, {tgt_in.batch * tgt_in.len, config_.tgt_vocab});
}

Var EncoderDecoder::forward_packed(const TokenBatch& src, const TokenBatch& tgt_in,
                                   kernels::MatmulPrecision precision) const {
  const RunMode m = mode(precision);
  return decoder_->output(gather_rows(features(src, tgt_in, nullptr, m), target_rows(tgt_in)), m);
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
  return std::make_unique<EncoderDecoder>(config, std::move(encoder), std::move(decoder));
}

}  // namespace heed
