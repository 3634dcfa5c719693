#pragma once
// Layer normalisation on the tape (kernels/layer_norm.h; docs/MODELS.md#transformer):
// PyTorch's nn.LayerNorm over the last dimension.
#include "heed/autograd/var.h"

namespace heed {

// x (..., d) -> (x - mean) / sqrt(var + eps) * gamma + beta per row of d; gamma and beta (d)
// or both undefined (no affine part). Shapes that disagree: heed::Error.
Var layer_norm(const Var& x, const Var& gamma, const Var& beta, double eps = 1e-5);

}  // namespace heed
