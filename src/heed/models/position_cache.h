#pragma once
// The keys and values of a decoder's earlier positions, for incremental self-attention (the
// Transformer's decoder, models/transformer_layers.h; docs/MODELS.md#transformer). Each step's
// rows are appended in place to one store that every copy of the cache shares, and each
// hypothesis finds its positions through its own row of an index. Reordering hypotheses
// (beam search's back-pointers, reorder_rows in seq2seq.h) permutes that index, a few
// integers per position, instead of copying keys and values; a step appends its rows instead
// of copying the whole cache into a longer one. Rows are never overwritten, so copies that
// go on appending (a reordered cache and the one it came from) cannot disturb each other.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "heed/autograd/multi_head_attention_op.h"
#include "heed/tensor/tensor.h"

namespace heed {

class PositionCache {
 public:
  PositionCache() = default;
  // An empty cache for `hypotheses` rows of `width` elements a position.
  PositionCache(std::int64_t hypotheses, std::int64_t width, DType dtype);

  bool defined() const { return store_ != nullptr; }
  std::int64_t hypotheses() const { return B_; }
  std::int64_t positions() const { return t_; }
  std::int64_t width() const { return width_; }

  // Appends x (B, n, width), any strides: positions [t, t + n) of every hypothesis.
  void append(const Tensor& x);
  // The hypotheses rows[0], rows[1], ... of this cache (each in [0, B)), sharing its store.
  PositionCache reorder(std::span<const std::int64_t> rows) const;
  // What multi_head_attention reads: every hypothesis's positions, the keys at key_column and
  // the values at value_column of each row. Valid until the next append.
  ListedKeys listed(std::int64_t key_column, std::int64_t value_column) const;
  // Hypothesis b's position j (a copy of its row, for tests).
  Tensor position(std::int64_t b, std::int64_t j) const;

 private:
  struct Store {
    Tensor rows;  // (capacity, width); rows [0, used) written
    std::int64_t used = 0;
  };
  std::shared_ptr<Store> store_;
  std::vector<std::int64_t> index_;  // (B, t): the store row of hypothesis b's position j
  std::int64_t B_ = 0, t_ = 0, width_ = 0;
};

}  // namespace heed
