#pragma once
// The Transformer's positions (docs/MODELS.md#transformer), added to the scaled token
// embeddings: fixed sines and cosines (Vaswani et al. 2017, sec. 3.5),
//   P[t, 2i] = sin(t / 10000^(2i/d)),   P[t, 2i+1] = cos(t / 10000^(2i/d)),
// or a learned table of max_positions rows (parameter "weight", an nn.Embedding).
#include <cstdint>
#include <memory>

#include "heed/models/model_config.h"
#include "heed/nn/embedding_layer.h"

namespace heed {

class Positions {
 public:
  Positions(const TransformerConfig& config, Rng& rng, DType dtype);

  // x (B, n, d) + P[start, start + n) for every batch row.
  Var add_to(const Var& x, std::int64_t start) const;
  // The learned table, null for sinusoidal positions (no parameters).
  Embedding* table() const { return table_.get(); }

 private:
  std::int64_t d_, max_;
  std::unique_ptr<Embedding> table_;
};

// The sinusoidal rows P[start, start + n), (n, d).
Tensor sinusoidal_positions(std::int64_t start, std::int64_t n, std::int64_t d, DType dtype);

}  // namespace heed
