#include "heed/nn/multi_head_attention_layer.h"

#include <cmath>

#include "heed/autograd/index.h"
#include "heed/autograd/matmul.h"
#include "heed/base/error.h"

namespace heed {

MultiHeadAttention::MultiHeadAttention(std::int64_t dim, std::int64_t heads, Rng& rng,
                                       DType dtype)
    : out_proj(dim, dim, true, rng, dtype), dim_(dim), heads_(heads) {
  HEED_CHECK(dim > 0 && heads > 0 && dim % heads == 0, "MultiHeadAttention: ", heads,
             " heads do not divide the size ", dim);
  register_module("out_proj", out_proj);
  // xavier_uniform_ on (3 d, d): bound sqrt(6 / (fan_in + fan_out)) = sqrt(6 / (4 d)).
  in_proj_weight = register_parameter(
      "in_proj_weight",
      init_uniform({3 * dim, dim}, std::sqrt(6.0 / static_cast<double>(4 * dim)), rng, dtype));
  in_proj_bias = register_parameter("in_proj_bias", Tensor::zeros({3 * dim}, dtype));
  out_proj.bias.mutable_value().fill(0.0);
}

Var MultiHeadAttention::queries(const Var& x, kernels::MatmulPrecision precision) const {
  // Rows of the stacked projection in place (a frozen weight's packed copy serves them).
  return linear_rows(x, in_proj_weight, in_proj_bias, 0, dim_, precision);
}

Var MultiHeadAttention::keys_values(const Var& x, kernels::MatmulPrecision precision) const {
  return linear_rows(x, in_proj_weight, in_proj_bias, dim_, 2 * dim_, precision);
}

Var MultiHeadAttention::attend(const Var& queries, const HeadsInput& k, const HeadsInput& v,
                               const MultiHeadOptions& options, Tensor* weights) const {
  HEED_CHECK(options.heads == heads_, "MultiHeadAttention: options for ", options.heads,
             " heads, the layer has ", heads_);
  return out_proj.forward(multi_head_attention({queries}, k, v, dim_, options, weights),
                          options.precision);
}

Var MultiHeadAttention::attend_with_weights(const Var& queries, const HeadsInput& k,
                                            const HeadsInput& v, const MultiHeadOptions& options,
                                            Var& weights) const {
  HEED_CHECK(options.heads == heads_, "MultiHeadAttention: options for ", options.heads,
             " heads, the layer has ", heads_);
  AttentionWithWeights r = multi_head_attention_with_weights({queries}, k, v, dim_, options);
  weights = r.weights;
  return out_proj.forward(r.out, options.precision);
}

Var MultiHeadAttention::self_attention(const Var& x, const MultiHeadOptions& options,
                                       Tensor* weights) const {
  const Var qkv = linear(x, in_proj_weight, in_proj_bias, options.precision);  // (B, n, 3 d)
  HEED_CHECK(options.heads == heads_, "MultiHeadAttention: options for ", options.heads,
             " heads, the layer has ", heads_);
  return out_proj.forward(
      multi_head_attention({qkv, 0}, {qkv, dim_}, {qkv, 2 * dim_}, dim_, options, weights),
      options.precision);
}

Var MultiHeadAttention::forward(const Var& query, const Var& key, const Var& value,
                                const MultiHeadOptions& options, Tensor* weights) const {
  const Var k = linear_rows(key, in_proj_weight, in_proj_bias, dim_, dim_, options.precision);
  const Var v = linear_rows(value, in_proj_weight, in_proj_bias, 2 * dim_, dim_, options.precision);
  return attend(queries(query, options.precision), {k}, {v}, options, weights);
}

}  // namespace heed
