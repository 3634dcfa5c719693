#include "heed/models/transformer_layers.h"

#include "heed/autograd/concat_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/index.h"
#include "heed/autograd/matmul.h"

namespace heed {

MultiHeadOptions attention_options(std::int64_t heads, const RunMode& mode) {
  MultiHeadOptions o;
  o.heads = heads;
  o.dropout = mode.dropout;
  o.training = mode.training;
  o.rng = mode.rng;
  o.precision = mode.precision;
  return o;
}

TransformerLayerBase::TransformerLayerBase(const TransformerConfig& c, Rng& rng, DType dtype)
    : d_(c.d_model),
      heads_(c.heads),
      pre_(c.norm == NormPlacement::pre),
      linear1(c.d_model, c.ff_dim, true, rng, dtype),
      linear2(c.ff_dim, c.d_model, true, rng, dtype) {}

Var TransformerLayerBase::feed_forward(const Var& x, const RunMode& mode) const {
  return linear2.forward(maybe_dropout(relu(linear1.forward(x, mode.precision)), mode),
                         mode.precision);
}

template <typename F>
Var TransformerLayerBase::residual(const Var& x, const LayerNorm& norm, const RunMode& mode,
                                   F&& f) const {
  if (pre_) return add(x, maybe_dropout(f(norm.forward(x)), mode));
  return norm.forward(add(x, maybe_dropout(f(x), mode)));
}

// nn.TransformerEncoderLayer's order of modules: self_attn, linear1, dropout, linear2, norm1,
// norm2 (our base class holds linear1 and linear2, so they are registered after self_attn).
TransformerEncoderLayer::TransformerEncoderLayer(const TransformerConfig& c, Rng& rng,
                                                 DType dtype)
    : TransformerLayerBase(c, rng, dtype),
      self_attn(c.d_model, c.heads, rng, dtype),
      norm1(c.d_model, dtype),
      norm2(c.d_model, dtype) {
  register_module("self_attn", self_attn);
  register_module("linear1", linear1);
  register_module("linear2", linear2);
  register_module("norm1", norm1);
  register_module("norm2", norm2);
}

Var TransformerEncoderLayer::forward(const Var& x, const std::vector<std::int64_t>& key_lengths,
                                     const RunMode& mode, Tensor* weights) const {
  MultiHeadOptions o = attention_options(heads_, mode);
  o.mask.key_lengths = key_lengths;
  Var h = residual(x, norm1, mode, [&](const Var& in) { return self_attn.self_attention(in, o, weights); });
  return residual(h, norm2, mode, [&](const Var& in) { return feed_forward(in, mode); });
}

TransformerDecoderLayer::TransformerDecoderLayer(const TransformerConfig& c, Rng& rng,
                                                 DType dtype)
    : TransformerLayerBase(c, rng, dtype),
      self_attn(c.d_model, c.heads, rng, dtype),
      multihead_attn(c.d_model, c.heads, rng, dtype),
      norm1(c.d_model, dtype),
      norm2(c.d_model, dtype),
      norm3(c.d_model, dtype) {
  register_module("self_attn", self_attn);
  register_module("multihead_attn", multihead_attn);
  register_module("linear1", linear1);
  register_module("linear2", linear2);
  register_module("norm1", norm1);
  register_module("norm2", norm2);
  register_module("norm3", norm3);
}

Var TransformerDecoderLayer::forward(const Var& x, Var* cache, const Var& memory,
                                     std::int64_t column,
                                     const std::vector<std::int64_t>& memory_lengths,
                                     const RunMode& mode, Var* cross_weights,
                                     Tensor* self_weights) const {
  const MultiHeadOptions plain = attention_options(heads_, mode);
  // Masked self-attention: one projection gives Q, K, V of the new positions.
  const auto self = [&](const Var& in) {
    const Var qkv = linear(in, self_attn.in_proj_weight, self_attn.in_proj_bias, mode.precision);
    MultiHeadOptions o = plain;
    if (!cache) {  // the whole target: position i reads positions <= i
      o.mask.causal = true;
      return self_attn.out_proj.forward(
          multi_head_attention({qkv, 0}, {qkv, d_}, {qkv, 2 * d_}, d_, o, self_weights),
          mode.precision);
    }
    // Incremental: the new positions' keys and values join the earlier ones', and every
    // position in the cache precedes the queries.
    const Var kv = slice(qkv, 2, d_, 3 * d_);
    *cache = cache->dim(1) == 0 ? kv : concat({*cache, kv}, 1);
    o.mask.causal = true;
    o.mask.causal_offset = cache->dim(1) - in.dim(1);
    return self_attn.out_proj.forward(
        multi_head_attention({qkv, 0}, {*cache, 0}, {*cache, d_}, d_, o, self_weights),
        mode.precision);
  };
  // Encoder-decoder attention over the memory's precomputed keys and values.
  const auto cross = [&](const Var& in) {
    MultiHeadOptions o = plain;
    o.mask.key_lengths = memory_lengths;
    const Var q = multihead_attn.queries(in, mode.precision);
    if (cross_weights)
      return multihead_attn.attend_with_weights(q, {memory, column}, {memory, column + d_}, o,
                                                *cross_weights);
    return multihead_attn.attend(q, {memory, column}, {memory, column + d_}, o);
  };
  Var h = residual(x, norm1, mode, self);
  h = residual(h, norm2, mode, cross);
  return residual(h, norm3, mode, [&](const Var& in) { return feed_forward(in, mode); });
}

}  // namespace heed
