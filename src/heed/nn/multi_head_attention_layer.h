#pragma once
// MultiHeadAttention: PyTorch's nn.MultiheadAttention(d, heads) with its parameters under
// its names: in_proj_weight (3 d, d) and in_proj_bias (3 d), the query, key and value
// projections stacked, and out_proj (an nn.Linear(d, d)). The attention between the
// projections is one fused op (autograd/multi_head_attention_op.h); the projections are
// linear ops, one GEMM for Q, K and V together when they read the same input.
#include <cstdint>

#include "heed/autograd/multi_head_attention_op.h"
#include "heed/nn/linear.h"
#include "heed/nn/module.h"

namespace heed {

class MultiHeadAttention : public Module {
 public:
  // PyTorch's initialisation: in_proj_weight xavier-uniform, out_proj.weight as nn.Linear,
  // both biases 0.
  MultiHeadAttention(std::int64_t dim, std::int64_t heads, Rng& rng, DType dtype = DType::f32);

  // nn.MultiheadAttention(query, key, value): query (B, n, d), key and value (B, m, d) ->
  // (B, n, d). weights, if given, receives the weights of every head (B, heads, n, m).
  Var forward(const Var& query, const Var& key, const Var& value, const MultiHeadOptions& options,
              Tensor* weights = nullptr) const;
  // Self-attention of x (B, n, d): one projection (B, n, 3 d) gives Q, K and V.
  Var self_attention(const Var& x, const MultiHeadOptions& options,
                     Tensor* weights = nullptr) const;

  // The pieces, for attention over a memory whose keys and values are computed once
  // (encoder-decoder attention) or grow step by step (incremental decoding):
  // the queries x W_q^T + b_q (B, n, d) and the keys and values [K, V] (B, m, 2 d) of x.
  Var queries(const Var& x, kernels::MatmulPrecision precision) const;
  Var keys_values(const Var& x, kernels::MatmulPrecision precision) const;
  // out_proj(attention(queries, k, v)).
  Var attend(const Var& queries, const HeadsInput& k, const HeadsInput& v,
             const MultiHeadOptions& options, Tensor* weights = nullptr) const;
  // The same with the weights (B, heads, n, m) on the tape, for a loss that reads them.
  Var attend_with_weights(const Var& queries, const HeadsInput& k, const HeadsInput& v,
                          const MultiHeadOptions& options, Var& weights) const;

  std::int64_t dim() const { return dim_; }
  std::int64_t heads() const { return heads_; }

  Var in_proj_weight;
  Var in_proj_bias;
  Linear out_proj;

 private:
  std::int64_t dim_, heads_;
};

}  // namespace heed
