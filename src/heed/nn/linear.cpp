#include "heed/nn/linear.h"

#include <cmath>

#include "heed/autograd/matmul.h"

namespace heed {

Linear::Linear(std::int64_t in_features, std::int64_t out_features, bool with_bias, Rng& rng,
               DType dtype)
    : in_(in_features), out_(out_features) {
  HEED_CHECK(in_features > 0 && out_features > 0, "Linear: sizes must be positive, got ",
             in_features, " -> ", out_features);
  // kaiming_uniform_(a=sqrt(5)) on (out, in) reduces to bound 1/sqrt(in), as does the bias.
  const double bound = 1.0 / std::sqrt(static_cast<double>(in_features));
  weight =
      register_parameter("weight", init_uniform({out_features, in_features}, bound, rng, dtype));
  if (with_bias) bias = register_parameter("bias", init_uniform({out_features}, bound, rng, dtype));
}

Var Linear::forward(const Var& x, kernels::MatmulPrecision precision) const {
  return linear(x, weight, bias, precision);
}

}  // namespace heed
