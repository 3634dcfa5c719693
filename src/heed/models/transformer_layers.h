#pragma once
// The Transformer's layers (Vaswani et al. 2017, sec. 3.1; docs/MODELS.md#transformer), as
// PyTorch's nn.TransformerEncoderLayer and nn.TransformerDecoderLayer lay out their
// parameters: self_attn (and multihead_attn, the encoder-decoder attention), linear1 and
// linear2 (the position-wise feed-forward network, ReLU between them), norm1, norm2 (and
// norm3). Each sub-layer is wrapped in a residual connection with dropout, its layer norm
// before it (pre-norm) or after the sum (post-norm):
//   pre:   x = x + dropout(sublayer(norm(x)))
//   post:  x = norm(x + dropout(sublayer(x)))
// and dropout also on the attention weights and after the ReLU, as PyTorch does.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "heed/models/model_config.h"
#include "heed/models/position_cache.h"
#include "heed/models/run_mode.h"
#include "heed/nn/layer_norm_layer.h"
#include "heed/nn/linear.h"
#include "heed/nn/multi_head_attention_layer.h"

namespace heed {

// The attention options of one call: the heads, and dropout on the weights in training.
MultiHeadOptions attention_options(std::int64_t heads, const RunMode& mode);

// The rows b n + t (t < lengths[b]) of a (B, n, .) batch's real positions, or none when
// fewer than kPackedPadding of the positions are padding (then skipping it costs more than
// it saves: gathering the real rows and placing them back is a copy of every sub-layer's
// input and output, forward and backward). The position-wise sub-layers (the feed-forward
// network, with its layer norm and residual sum) run on these rows only: the padding's
// values reach no real position (attention masks them as keys, and a padded query's output
// is read by nothing but more padding), so they may as well stay as they are.
inline constexpr double kPackedPadding = 0.1;
std::vector<std::int64_t> real_rows(std::int64_t B, std::int64_t n,
                                    const std::vector<std::int64_t>& lengths);
// y (R, w) of the rows `rows` placed in a (B, n, w) batch, zeros elsewhere; y itself when
// rows is empty (y is then the whole batch already).
Var place_rows(const Var& y, const std::vector<std::int64_t>& rows, std::int64_t B,
               std::int64_t n);
// x (B, n, w) -> its rows `rows` (R, w); x itself when rows is empty.
Var pick_rows(const Var& x, const std::vector<std::int64_t>& rows);

// Layers that share the feed-forward network and the residual wrapping.
class TransformerLayerBase : public Module {
 protected:
  TransformerLayerBase(const TransformerConfig& config, Rng& rng, DType dtype);
  // linear2(dropout(relu(linear1(x)))).
  Var feed_forward(const Var& x, const RunMode& mode) const;
  // x + dropout(f(norm(x))) or norm(x + dropout(f(x))), on the rows `rows` of x (B, n, d)
  // only (real_rows; all rows when empty): f maps the (R, d) rows to (R, d) (to (B, n, d)
  // when rows is empty); the other rows pass through (pre-norm) or are only normalised
  // (post-norm).
  template <typename F>
  Var residual_rows(const Var& x, const LayerNorm& norm, const RunMode& mode,
                    const std::vector<std::int64_t>& rows, F&& f) const;

  std::int64_t d_, heads_;
  bool pre_;

 public:
  Linear linear1, linear2;
};

class TransformerEncoderLayer : public TransformerLayerBase {
 public:
  TransformerEncoderLayer(const TransformerConfig& config, Rng& rng, DType dtype);
  // x (B, m, d) -> (B, m, d); keys j >= key_lengths[b] are padding. weights, if given,
  // receives the self-attention weights (B, heads, m, m).
  Var forward(const Var& x, const std::vector<std::int64_t>& key_lengths, const RunMode& mode,
              Tensor* weights = nullptr) const;

  MultiHeadAttention self_attn;
  LayerNorm norm1, norm2;
};

class TransformerDecoderLayer : public TransformerLayerBase {
 public:
  TransformerDecoderLayer(const TransformerConfig& config, Rng& rng, DType dtype);

  // Positions [t0, t0 + n) of the target, x (B, n, d) -> (B, n, d).
  //   cache null: the whole target at once (t0 = 0), causal self-attention;
  //   cache given: the earlier positions' keys and values [K; V] (t0 of them, 2 d a row),
  //   which the new positions' own are appended to (incremental decoding, no gradient).
  // memory (B, m, *): the encoder-decoder keys and values at columns [column, column + 2 d)
  // (keys_values of the annotations, computed once per batch); memory_lengths the sources'.
  // cross_weights, if given, receives the encoder-decoder weights (B, heads, n, m), on the
  // tape (copy attention's loss reads them), and self_weights the self-attention weights
  // (B, heads, n, t0 + n). memory_rows (B, m), if given: the memory is shared by several
  // hypotheses (beam search), and hypothesis b's key j is row memory_rows[b m + j] of it
  // seen as (rows, *) (Encoded::key_rows; decoding only).
  Var forward(const Var& x, PositionCache* cache, const Var& memory, std::int64_t column,
              const std::vector<std::int64_t>& memory_lengths, const RunMode& mode,
              Var* cross_weights, Tensor* self_weights = nullptr,
              std::span<const std::int64_t> memory_rows = {}) const;

  MultiHeadAttention self_attn, multihead_attn;
  LayerNorm norm1, norm2, norm3;
};

}  // namespace heed
