#pragma once
// Embedding: a (num, dim) lookup table, PyTorch's nn.Embedding (parameter "weight").
#include <cstdint>
#include <vector>

#include "heed/nn/module.h"

namespace heed {

class Embedding : public Module {
 public:
  // weight ~ N(0, 1) drawn from rng in row-major order; the padding_idx row (if >= 0) is
  // zero and never receives a gradient, as in PyTorch. padding_idx < 0: no padding row.
  Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim, std::int64_t padding_idx,
            Rng& rng, DType dtype = DType::f32);

  // ids (row-major, leading.numel() of them) -> leading + (dim).
  Var forward(const std::vector<std::int32_t>& ids, const Shape& leading) const;

  std::int64_t num_embeddings() const { return num_; }
  std::int64_t embedding_dim() const { return dim_; }
  std::int64_t padding_idx() const { return padding_idx_; }

  Var weight;

 private:
  std::int64_t num_, dim_, padding_idx_;
};

}  // namespace heed
