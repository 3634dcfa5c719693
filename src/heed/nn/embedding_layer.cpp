#include "heed/nn/embedding_layer.h"

#include "heed/autograd/embedding_op.h"
#include "heed/tensor/arena.h"

namespace heed {

Embedding::Embedding(std::int64_t num_embeddings, std::int64_t embedding_dim,
                     std::int64_t padding_idx, Rng& rng, DType dtype)
    : num_(num_embeddings), dim_(embedding_dim), padding_idx_(padding_idx < 0 ? -1 : padding_idx) {
  HEED_CHECK(num_embeddings > 0 && embedding_dim > 0, "Embedding: sizes must be positive, got ",
             num_embeddings, " x ", embedding_dim);
  HEED_CHECK(padding_idx < num_embeddings, "Embedding: padding_idx ", padding_idx,
             " is outside the table of ", num_embeddings, " rows");
  ArenaScope heap(nullptr);  // parameters outlive every batch
  Tensor w = Tensor::empty({num_embeddings, embedding_dim}, dtype);
  dispatch(dtype, [&]<typename T>() {
    T* p = w.data<T>();
    for (std::int64_t i = 0; i < w.numel(); ++i) p[i] = static_cast<T>(rng.normal());
    if (padding_idx_ >= 0)
      for (std::int64_t c = 0; c < embedding_dim; ++c) p[padding_idx_ * embedding_dim + c] = T(0);
  });
  weight = register_parameter("weight", w);
}

Var Embedding::forward(const std::vector<std::int32_t>& ids, const Shape& leading) const {
  return embedding(weight, ids, leading, padding_idx_);
}

}  // namespace heed
