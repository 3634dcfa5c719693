#pragma once
// Multi-head scaled dot-product attention (Vaswani et al. 2017, sec. 3.2;
// docs/MODELS.md#transformer), forward and backward, over the heads of a batch at once:
//   S_bh = scale Q_bh K_bh^T (+ an additive (n, m) mask),  masked keys -> -inf
//   P_bh = softmax_rows(S_bh),  O_bh = dropout(P_bh) V_bh
// Head h of a (len, dim) block is its columns [h dh, (h + 1) dh), dh = dim / heads, so
// splitting and merging the heads are strides, not copies: Q, K, V are read where they lie
// (three column blocks of one projection, say) and O is written as (B, n, dim) with the
// heads side by side. The (batch, head) pairs run in parallel. A pair's products are
// kernels::gemm calls, or, when they are small (a head of a short sentence, or one decoding
// step's query), loops of dot products and row updates over dh contiguous elements: each call
// into oneDNN's sgemm costs microseconds before any arithmetic, several times what such a
// product's arithmetic costs.
#include <cstdint>

#include "heed/kernels/gemm.h"

namespace heed::kernels {

struct HeadsShape {
  std::int64_t batch = 0;    // B
  std::int64_t heads = 1;    // h (divides dim)
  std::int64_t queries = 0;  // n
  std::int64_t keys = 0;     // m
  std::int64_t dim = 0;      // the model size d, all heads together
  // Row strides (elements from one position to the next) of Q, K and V; a batch row's block
  // is len * ld further on. The gradients of the backward share these strides.
  std::int64_t q_ld = 0, k_ld = 0, v_ld = 0;
  const std::int64_t* key_lengths = nullptr;  // (B) or null: keys j >= key_lengths[b] masked
  bool causal = false;                        // query i reads keys j <= i + causal_offset
  std::int64_t causal_offset = 0;
  // (B, m) or null: key j of batch row b is row key_rows[b m + j] of K and of V (k_ld and v_ld
  // elements a row) instead of row b m + j. Incremental decoding's self-attention reads each
  // hypothesis's earlier positions this way from one store (models/position_cache.h). Forward
  // only; the products then always run as loops.
  const std::int64_t* key_rows = nullptr;
  double scale = 1.0;                         // 1 / sqrt(dh) for scaled dot products
  // Backward only: which of dQ, dK, dV the call overwrites instead of accumulating into, for
  // a gradient buffer nothing has written yet (Var::grad_buffer_unzeroed). Each (row, heads)
  // task zeroes its own rows' columns just before it adds to them, while they are in cache,
  // in place of a zeroing pass over the whole buffer long before.
  bool overwrite_dq = false, overwrite_dk = false, overwrite_dv = false;
  // How the products run: chosen by their size (automatic), or forced (for the tests).
  enum class Products { automatic, loops, gemm } products = Products::automatic;
};

// Whether a call with this shape runs its products as loops (the automatic choice: n m dh
// at most kSmallProducts).
inline constexpr std::int64_t kSmallProducts = 32 * 32 * 64;
bool uses_product_loops(const HeadsShape& s);

// P (B, h, n, m) receives the softmax weights (0 on masked keys; a row with every key masked
// is all 0), O (B, n, dim) the merged heads. additive (n, m) or null; drop (B, h, n, m) or
// null: the dropout mask on the weights (0 or 1 / (1 - p), kernels/dropout.h).
template <typename T>
void multi_head_attention(const GemmOptions& options, const HeadsShape& s, const T* Q, const T* K,
                          const T* V, const T* additive, const T* drop, T* P, T* O);

// Accumulates dQ, dK, dV (each with its input's stride; any may be null; overwrites those
// the shape's overwrite_* name: every row's columns of the heads) from dO (B, n, dim)
// and the forward's P and drop. dP (B, h, n, m), or null: a gradient of the weights P
// themselves (before dropout), for a loss that reads them (copy attention), added to the
// one that reaches P through O.
template <typename T>
void multi_head_attention_backward(const GemmOptions& options, const HeadsShape& s, const T* Q,
                                   const T* K, const T* V, const T* P, const T* drop,
                                   const T* dO, const T* dP, T* dQ, T* dK, T* dV);

}  // namespace heed::kernels
