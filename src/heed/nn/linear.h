#pragma once
// Linear: y = x W^T + b, PyTorch's nn.Linear (parameters "weight" (out, in), "bias" (out)).
#include <cstdint>

#include "heed/kernels/precision.h"
#include "heed/nn/module.h"

namespace heed {

class Linear : public Module {
 public:
  // PyTorch's default initialisation: weight then bias, each uniform(±1/sqrt(in)), drawn
  // from rng in that order.
  Linear(std::int64_t in_features, std::int64_t out_features, bool bias, Rng& rng,
         DType dtype = DType::f32);

  // x (..., in) -> (..., out); all leading dimensions go through one GEMM, at precision
  // (autograd/matmul.h).
  Var forward(const Var& x,
              kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32) const;

  std::int64_t in_features() const { return in_; }
  std::int64_t out_features() const { return out_; }

  Var weight;
  Var bias;  // undefined when constructed without bias

 private:
  std::int64_t in_, out_;
};

}  // namespace heed
