#pragma once
// LayerNorm: PyTorch's nn.LayerNorm(d) over the last dimension (parameters "weight" = gamma,
// initialised to 1, and "bias" = beta, initialised to 0; autograd/layer_norm_op.h).
#include <cstdint>

#include "heed/nn/module.h"

namespace heed {

class LayerNorm : public Module {
 public:
  explicit LayerNorm(std::int64_t dim, DType dtype = DType::f32, double eps = 1e-5);

  // x (..., dim) -> the same shape.
  Var forward(const Var& x) const;

  Var weight;
  Var bias;

 private:
  double eps_;
};

}  // namespace heed
