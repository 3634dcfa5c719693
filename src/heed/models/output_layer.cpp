#include "heed/models/output_layer.h"

#include <cmath>

#include "heed/autograd/matmul.h"

namespace heed {

OutputLayer::OutputLayer(std::int64_t in, std::int64_t vocab, Rng& rng, DType dtype,
                         const Var& tied)
    : tied_(tied.defined()) {
  HEED_CHECK(in > 0 && vocab > 0, "output layer: sizes must be positive, got ", in, " -> ", vocab);
  const double bound = 1.0 / std::sqrt(static_cast<double>(in));
  if (tied_) {
    HEED_CHECK(tied.shape() == Shape({vocab, in}), "output layer: a tied weight must be (",
               vocab, ", ", in, "), got ", tied.shape().str());
    weight = tied;
  } else {
    weight = register_parameter("weight", init_uniform({vocab, in}, bound, rng, dtype));
  }
  bias = register_parameter("bias", init_uniform({vocab}, bound, rng, dtype));
}

Var OutputLayer::forward(const Var& x, kernels::MatmulPrecision precision) const {
  return linear(x, weight, bias, precision);
}

}  // namespace heed
