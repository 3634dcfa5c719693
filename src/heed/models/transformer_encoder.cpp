#include "heed/models/transformer_encoder.h"

#include <cmath>

#include "heed/autograd/elementwise_op.h"

namespace heed {

std::unique_ptr<Embedding> transformer_embedding(std::int64_t vocab, std::int64_t d, Rng& rng,
                                                 DType dtype) {
  auto emb = std::make_unique<Embedding>(vocab, d, kPad, rng, dtype);
  Tensor& w = emb->weight.mutable_value();
  dispatch(dtype, [&]<typename T>() {
    T* p = w.data<T>();
    const T s = static_cast<T>(1.0 / std::sqrt(static_cast<double>(d)));
    for (std::int64_t i = 0; i < w.numel(); ++i) p[i] *= s;
  });
  return emb;
}

Var scaled_embedding(const Embedding& emb, std::span<const std::int32_t> ids, const Shape& shape,
                     Var* unscaled) {
  Var e = emb.forward(std::vector<std::int32_t>(ids.begin(), ids.end()), shape);
  if (unscaled) *unscaled = e;
  return scale(e, std::sqrt(static_cast<double>(emb.embedding_dim())));
}

TransformerEncoder::TransformerEncoder(std::unique_ptr<Embedding> src_emb, const ModelConfig& c,
                                       Rng& rng, DType dtype)
    : d_(c.transformer.d_model),
      emb_(std::move(src_emb)),
      positions_(c.transformer, rng, dtype),
      stack_(c.transformer, c.enc_layers, rng, dtype) {}

NamedModules TransformerEncoder::modules() {
  NamedModules m{{"src_emb", emb_.get()}};
  if (positions_.table()) m.push_back({"src_pos", positions_.table()});
  m.push_back({"encoder", &stack_});
  return m;
}

EncoderOutput TransformerEncoder::encode(const TokenBatch& src, const RunMode& mode) const {
  return run(src, mode, nullptr);
}

std::vector<Tensor> TransformerEncoder::attention_heads(const TokenBatch& src,
                                                        const RunMode& mode) const {
  std::vector<Tensor> weights;
  run(src, mode, &weights);
  return weights;
}

EncoderOutput TransformerEncoder::run(const TokenBatch& src, const RunMode& mode,
                                      std::vector<Tensor>* weights) const {
  Var x = scaled_embedding(*emb_, src.ids, {src.batch, src.len}, mode.source_embeddings);
  x = maybe_dropout(positions_.add_to(x, 0), mode);
  if (weights) weights->assign(stack_.layers.size(), Tensor());
  for (std::size_t l = 0; l < stack_.layers.size(); ++l)
    x = stack_.layers[l]->forward(x, src.lengths, mode, weights ? &(*weights)[l] : nullptr);
  EncoderOutput out;
  out.annotations = stack_.norm.forward(x);
  out.lengths = src.lengths;
  return out;
}

}  // namespace heed
