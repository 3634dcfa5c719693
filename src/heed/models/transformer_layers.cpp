#include "heed/models/transformer_layers.h"

#include <algorithm>

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

std::vector<std::int64_t> real_rows(std::int64_t B, std::int64_t n,
                                    const std::vector<std::int64_t>& lengths) {
  std::vector<std::int64_t> rows;
  if (static_cast<std::int64_t>(lengths.size()) != B) return rows;
  std::int64_t real = 0;
  for (std::int64_t len : lengths) real += std::clamp<std::int64_t>(len, 0, n);
  const std::int64_t all = B * n;
  if (all == real || static_cast<double>(all - real) < kPackedPadding * static_cast<double>(all))
    return rows;
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t t = 0; t < std::min(n, lengths[static_cast<std::size_t>(b)]); ++t)
      rows.push_back(b * n + t);
  return rows;
}

Var place_rows(const Var& y, const std::vector<std::int64_t>& rows, std::int64_t B,
               std::int64_t n) {
  return rows.empty() ? y : scatter_rows(y, rows, Shape{B, n, y.dim(1)});
}

Var pick_rows(const Var& x, const std::vector<std::int64_t>& rows) {
  return rows.empty() ? x : gather_rows(x, rows);
}

TransformerLayerBase::TransformerLayerBase(const TransformerConfig& c, Rng& rng, DType dtype)
    : d_(c.d_model),
      heads_(c.heads),
      pre_(c.norm == NormPlacement::pre),
      linear1(c.d_model, c.ff_dim, true, rng, dtype),
      linear2(c.ff_dim, c.d_model, true, rng, dtype) {}

Var TransformerLayerBase::feed_forward(const Var& x, const RunMode& mode) const {
  // linear1, its ReLU and the dropout after it as one op (autograd/matmul.h: the same numbers,
  // two passes and the dropout mask less).
  const double p = dropout_rate(mode);
  const Var h = p > 0 ? linear_relu_dropout(x, linear1.weight, linear1.bias, p, *mode.rng,
                                            mode.precision)
                      : linear_relu(x, linear1.weight, linear1.bias, mode.precision);
  return linear2.forward(h, mode.precision);
}

template <typename F>
Var TransformerLayerBase::residual_rows(const Var& x, const LayerNorm& norm, const RunMode& mode,
                                        const std::vector<std::int64_t>& rows, F&& f) const {
  const Var in = pick_rows(x, rows);
  const auto sum = [&](const Var& y) {
    const Var branch = maybe_dropout(y, mode);
    return rows.empty() ? add(x, branch) : add_rows(x, rows, branch);
  };
  if (pre_) return sum(f(norm.forward(in)));
  return norm.forward(sum(f(in)));
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
  const std::int64_t B = x.dim(0), m = x.dim(1);
  // The projections on the real positions only; the attention itself on the (B, m) batch.
  const std::vector<std::int64_t> rows = real_rows(B, m, key_lengths);
  const auto self = [&](const Var& in) {
    const Var qkv = place_rows(
        linear(in, self_attn.in_proj_weight, self_attn.in_proj_bias, mode.precision), rows, B, m);
    return self_attn.out_proj.forward(
        pick_rows(multi_head_attention({qkv, 0}, {qkv, d_}, {qkv, 2 * d_}, d_, o, weights), rows),
        mode.precision);
  };
  Var h = residual_rows(x, norm1, mode, rows, self);
  return residual_rows(h, norm2, mode, rows, [&](const Var& in) { return feed_forward(in, mode); });
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

Var TransformerDecoderLayer::forward(const Var& x, PositionCache* cache, const Var& memory,
                                     std::int64_t column,
                                     const std::vector<std::int64_t>& memory_lengths,
                                     const RunMode& mode, Var* cross_weights,
                                     Tensor* self_weights,
                                     std::span<const std::int64_t> memory_rows) const {
  const MultiHeadOptions plain = attention_options(heads_, mode);
  const std::int64_t B = x.dim(0), n = x.dim(1);
  // The whole target at once: its padding needs no projections and no feed-forward network
  // (the attention itself runs on the (B, n) batch).
  const std::vector<std::int64_t> rows =
      !cache && mode.target_lengths ? real_rows(B, n, *mode.target_lengths)
                                    : std::vector<std::int64_t>();
  // Masked self-attention: one projection gives Q, K, V of the new positions.
  const auto self = [&](const Var& in) {
    const Var qkv = place_rows(
        linear(in, self_attn.in_proj_weight, self_attn.in_proj_bias, mode.precision), rows, B, n);
    MultiHeadOptions o = plain;
    if (!cache) {  // the whole target: position i reads positions <= i
      o.mask.causal = true;
      return self_attn.out_proj.forward(
          pick_rows(multi_head_attention({qkv, 0}, {qkv, d_}, {qkv, 2 * d_}, d_, o, self_weights),
                    rows),
          mode.precision);
    }
    // Incremental: the new positions' keys and values join the earlier ones' in the cache,
    // and every position there precedes the queries.
    cache->append(qkv.value().slice(2, d_, 3 * d_));
    o.mask.causal = true;
    o.mask.causal_offset = cache->positions() - in.dim(1);
    return self_attn.out_proj.forward(
        multi_head_attention({qkv, 0}, cache->listed(0, d_), d_, o, self_weights),
        mode.precision);
  };
  // Encoder-decoder attention over the memory's precomputed keys and values.
  const auto cross = [&](const Var& in) {
    MultiHeadOptions o = plain;
    o.mask.key_lengths = memory_lengths;
    const Var q = place_rows(multihead_attn.queries(in, mode.precision), rows, B, n);
    Var heads;
    if (!memory_rows.empty()) {  // one copy of the memory, listed for each hypothesis
      const Tensor& mem = memory.value();
      const std::int64_t m = mem.dim(1);
      HEED_CHECK(static_cast<std::int64_t>(memory_rows.size()) == B * m,
                 "transformer: ", memory_rows.size(), " memory rows for ", B, " x ", m, " keys");
      Tensor weights;
      heads = multi_head_attention({q},
                                   {mem.reshape({mem.dim(0) * m, mem.dim(2)}), memory_rows.data(),
                                    m, column, column + d_},
                                   d_, o, cross_weights ? &weights : nullptr);
      if (cross_weights) *cross_weights = Var(weights);
    } else if (cross_weights) {  // the weights on the tape (copy attention's loss reads them)
      AttentionWithWeights r =
          multi_head_attention_with_weights({q}, {memory, column}, {memory, column + d_}, d_, o);
      *cross_weights = r.weights;
      heads = r.out;
    } else {
      heads = multi_head_attention({q}, {memory, column}, {memory, column + d_}, d_, o);
    }
    return multihead_attn.out_proj.forward(pick_rows(heads, rows), mode.precision);
  };
  Var h = residual_rows(x, norm1, mode, rows, self);
  h = residual_rows(h, norm2, mode, rows, cross);
  return residual_rows(h, norm3, mode, rows, [&](const Var& in) { return feed_forward(in, mode); });
}

}  // namespace heed
