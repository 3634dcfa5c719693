#pragma once
// Multi-head scaled dot-product attention as one op on the tape
// (kernels/multi_head_attention.h; docs/MODELS.md#transformer): the heads split, the scores
// Q K^T / sqrt(dh), the masks, the softmax, dropout on the weights, the weighted sum and the
// heads merged, forward and backward, in one entry. The projections around it (Q, K, V in,
// the output after) are ordinary linear ops (nn/multi_head_attention_layer.h).
#include <cstdint>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/base/random.h"
#include "heed/kernels/precision.h"

namespace heed {

// The columns [column, column + dim) of x (B, len, width), contiguous: the queries, keys or
// values of every head side by side. Q, K and V may be three blocks of one tensor (a
// self-attention's single input projection); gradients go to the same blocks of x.
struct HeadsInput {
  Var x;
  std::int64_t column = 0;
};

// Which keys each query reads; what is masked gets weight exactly 0.
struct AttentionMask {
  std::vector<std::int64_t> key_lengths;  // empty: every key; else (B): keys j >= length masked
  bool causal = false;                    // query i reads keys j <= i + causal_offset only
  std::int64_t causal_offset = 0;         // the first query's position (incremental decoding)
  Tensor additive;                        // (n, m) added to every head's scores (-inf masks)
};

struct MultiHeadOptions {
  std::int64_t heads = 1;
  AttentionMask mask;
  double dropout = 0.0;  // on the attention weights, in training (rng required then)
  bool training = false;
  Rng* rng = nullptr;
  kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32;
};

// q (B, n, >= dim), k and v (B, m, >= dim) -> (B, n, dim), the heads' outputs merged
// (heads divides dim). weights, if given, receives the softmax weights (B, heads, n, m)
// before dropout. Shapes that disagree: heed::Error.
Var multi_head_attention(const HeadsInput& q, const HeadsInput& k, const HeadsInput& v,
                         std::int64_t dim, const MultiHeadOptions& options,
                         Tensor* weights = nullptr);

// Keys and values listed by row: key j of batch row b is row index[b m + j] of `rows`
// (N, width), its key the columns [key_column, key_column + dim) and its value
// [value_column, value_column + dim). Incremental decoding's self-attention reads each
// hypothesis's earlier positions this way from one store (models/position_cache.h), so that
// reordering hypotheses moves indices, not keys and values.
struct ListedKeys {
  Tensor rows;                          // (N, width), contiguous
  const std::int64_t* index = nullptr;  // (B, keys), each in [0, N)
  std::int64_t keys = 0;                // m
  std::int64_t key_column = 0;
  std::int64_t value_column = 0;
};

// q (B, n, >= dim) over listed keys and values -> (B, n, dim), as above. For decoding: no
// dropout, nothing on the tape (q must not require a gradient, or the tape be off).
Var multi_head_attention(const HeadsInput& q, const ListedKeys& kv, std::int64_t dim,
                         const MultiHeadOptions& options, Tensor* weights = nullptr);

// The same with the weights on the tape: `weights` (B, heads, n, m), before dropout, is a
// second output whose gradient reaches q and k (copy attention reads the encoder-decoder
// weights in its loss, models/pointer_generator.h).
struct AttentionWithWeights {
  Var out;
  Var weights;
};
AttentionWithWeights multi_head_attention_with_weights(const HeadsInput& q, const HeadsInput& k,
                                                       const HeadsInput& v, std::int64_t dim,
                                                       const MultiHeadOptions& options);

}  // namespace heed
