#pragma once
// Every head of every multi-head attention layer of one teacher-forced pass (the Transformer:
// docs/MODELS.md#transformer), what `heed show` draws and `heed serve` sends with "heads".
// Each entry is one layer's weights, (B, heads, queries, keys).
#include <vector>

#include "heed/tensor/tensor.h"

namespace heed {

struct AttentionHeads {
  std::vector<Tensor> cross;         // per decoder layer: encoder-decoder, (B, H, n, m)
  std::vector<Tensor> decoder_self;  // per decoder layer: masked self-attention, (B, H, n, n)
  std::vector<Tensor> encoder_self;  // per encoder layer: self-attention, (B, H, m, m)
  // A model with one attention (or none) has no heads.
  bool empty() const { return cross.empty(); }
};

}  // namespace heed
