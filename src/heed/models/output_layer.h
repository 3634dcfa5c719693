#pragma once
// OutputLayer: the vocabulary projection W_out o + b_out (nn.Linear(in, vocab), parameters
// "weight" and "bias"), whose weight may instead be the target embedding's (tied
// embeddings). A tied weight is not registered here: like PyTorch's named_parameters(), the
// shared tensor appears once, under the embedding's name.
#include <cstdint>

#include "heed/kernels/precision.h"
#include "heed/nn/module.h"

namespace heed {

class OutputLayer : public Module {
 public:
  // tied: undefined, or a (vocab, in) weight owned by another module.
  OutputLayer(std::int64_t in, std::int64_t vocab, Rng& rng, DType dtype, const Var& tied = Var());

  // x (..., in) -> logits (..., vocab), one GEMM over all leading dimensions, at precision.
  Var forward(const Var& x, kernels::MatmulPrecision precision) const;
  bool tied() const { return tied_; }

  Var weight;
  Var bias;

 private:
  bool tied_;
};

}  // namespace heed
