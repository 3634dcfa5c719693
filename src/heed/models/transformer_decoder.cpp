#include "heed/models/transformer_decoder.h"

#include "heed/autograd/concat_op.h"
#include "heed/autograd/index.h"
#include "heed/autograd/reduce_op.h"

namespace heed {

TransformerDecoder::TransformerDecoder(std::unique_ptr<Embedding> tgt_emb, const ModelConfig& c,
                                       Rng& rng, DType dtype)
    : TransformerDecoder(std::move(tgt_emb), nullptr, c, rng, dtype) {}

TransformerDecoder::TransformerDecoder(const Embedding& shared, const ModelConfig& c, Rng& rng,
                                       DType dtype)
    : TransformerDecoder(nullptr, &shared, c, rng, dtype) {}

// Made in the reference's order: the embedding (by the caller), the positions, the layers,
// the output layer.
TransformerDecoder::TransformerDecoder(std::unique_ptr<Embedding> own, const Embedding* shared,
                                       const ModelConfig& c, Rng& rng, DType dtype)
    : d_(c.transformer.d_model),
      vocab_(c.tgt_vocab),
      align_layer_(c.transformer.alignment_layer > 0 ? c.transformer.alignment_layer - 1
                                                     : c.dec_layers - 1),
      align_head_(c.transformer.alignment_head),
      own_emb_(std::move(own)),
      tgt_emb_(own_emb_ ? own_emb_.get() : shared),
      positions_(c.transformer, rng, dtype),
      stack_(c.transformer, c.dec_layers, rng, dtype),
      W_s_(c.transformer.d_model, c.tgt_vocab, rng, dtype,
           c.tie_embeddings ? tgt_emb_->weight : Var()) {}

// A borrowed table is the encoder's to register: its entry is null (EncoderDecoder skips it).
NamedModules TransformerDecoder::modules() {
  NamedModules m{{"tgt_emb", own_emb_.get()}};
  if (positions_.table()) m.push_back({"tgt_pos", positions_.table()});
  m.push_back({"decoder", &stack_});
  m.push_back({"W_s", &W_s_});
  return m;
}

Var TransformerDecoder::embed(std::span<const std::int32_t> ids, const Shape& shape,
                              const RunMode&) const {
  return scaled_embedding(*tgt_emb_, ids, shape);
}

Encoded TransformerDecoder::prepare(const EncoderOutput& enc, const RunMode& mode) const {
  Encoded out;
  out.annotations = enc.annotations;
  out.lengths = enc.lengths;
  // [K_l; V_l] of every layer, once per batch, projected from the real source positions only
  // (real_rows): a padded key is masked, so its key and value stay 0.
  const std::int64_t B = enc.annotations.dim(0), m = enc.annotations.dim(1);
  const std::vector<std::int64_t> rows = real_rows(B, m, enc.lengths);
  const Var source = pick_rows(enc.annotations, rows);
  std::vector<Var> kv;
  for (const auto& layer : stack_.layers)
    kv.push_back(layer->multihead_attn.keys_values(source, mode.precision));
  out.keys = place_rows(
      kv.size() == 1 ? kv[0] : concat(kv, static_cast<int>(kv[0].value().ndim()) - 1), rows, B, m);
  out.keys_by_row = true;  // its attention reads them by row: hypotheses can share them
  for (std::size_t l = 0; l < stack_.layers.size(); ++l)
    out.initial.caches.emplace_back(B, 2 * d_, enc.annotations.dtype());
  return out;
}

Var TransformerDecoder::run(const Var& E, std::int64_t start, DecoderState* state,
                            const Encoded& enc, const RunMode& mode, std::vector<Var>* weights,
                            std::vector<Tensor>* self_weights) const {
  Var x = maybe_dropout(positions_.add_to(E, start), mode);
  if (weights) weights->assign(stack_.layers.size(), Var());
  if (self_weights) self_weights->assign(stack_.layers.size(), Tensor());
  for (std::size_t l = 0; l < stack_.layers.size(); ++l)
    x = stack_.layers[l]->forward(x, state ? &state->caches[l] : nullptr, enc.keys,
                                  static_cast<std::int64_t>(l) * 2 * d_, enc.lengths, mode,
                                  weights ? &(*weights)[l] : nullptr,
                                  self_weights ? &(*self_weights)[l] : nullptr,
                                  state ? std::span<const std::int64_t>(enc.key_rows)
                                        : std::span<const std::int64_t>());
  return stack_.norm.forward(x);
}

Var TransformerDecoder::alignment(const std::vector<Var>& weights) const {
  const Var& w = weights[static_cast<std::size_t>(align_layer_)];
  if (align_head_ > 0) return select(w, 1, align_head_ - 1);
  return mean(w, 1);
}

Var TransformerDecoder::step(const Var& e, DecoderState& state, const Encoded& enc,
                             const RunMode& mode, Var* alpha) const {
  HEED_CHECK(state.caches.size() == stack_.layers.size(), "transformer: the decoder state has ",
             state.caches.size(), " caches for ", stack_.layers.size(), " layers (use initial_state)");
  const std::int64_t B = e.dim(0), t = state.caches[0].positions();
  std::vector<Var> weights;
  Var h = run(reshape(e, {B, 1, d_}), t, &state, enc, mode, alpha ? &weights : nullptr);
  if (alpha) {
    const Var a = alignment(weights);  // (B, 1, m)
    *alpha = reshape(a, {B, a.dim(2)});
  }
  return reshape(h, {B, d_});
}

// With an attention trace (copy attention's training), each position's weights (B, m) are
// slices of the whole target's, on the tape.
std::optional<Var> TransformerDecoder::accelerated(const Var& E, const Encoded& enc,
                                                   const RunMode& mode, Tensor* alphas) const {
  const bool wanted = alphas || mode.attention;
  std::vector<Var> weights;
  Var h = run(E, 0, nullptr, enc, mode, wanted ? &weights : nullptr);
  if (!wanted) return h;
  const Var a = alignment(weights);  // (B, n, m)
  if (alphas) *alphas = a.value().contiguous();
  if (mode.attention)
    for (std::int64_t t = 0; t < a.dim(1); ++t) mode.attention->push_back(select(a, 1, t));
  return h;
}

AttentionHeads TransformerDecoder::attention_heads(const Var& E, const Encoded& enc,
                                                  const RunMode& mode) const {
  AttentionHeads heads;
  std::vector<Var> cross;
  run(E, 0, nullptr, enc, mode, &cross, &heads.decoder_self);
  for (const Var& w : cross) heads.cross.push_back(w.value());
  return heads;
}

Var TransformerDecoder::pre_output(const Var& features, const RunMode& mode) const {
  (void)mode;
  return features;
}

}  // namespace heed
