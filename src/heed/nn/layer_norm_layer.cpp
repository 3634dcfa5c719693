#include "heed/nn/layer_norm_layer.h"

#include "heed/autograd/layer_norm_op.h"
#include "heed/base/error.h"

namespace heed {

LayerNorm::LayerNorm(std::int64_t dim, DType dtype, double eps) : eps_(eps) {
  HEED_CHECK(dim > 0, "LayerNorm: the size must be positive, got ", dim);
  weight = register_parameter("weight", Tensor::full({dim}, 1.0, dtype));
  bias = register_parameter("bias", Tensor::zeros({dim}, dtype));
}

Var LayerNorm::forward(const Var& x) const { return layer_norm(x, weight, bias, eps_); }

}  // namespace heed
