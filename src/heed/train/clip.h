#pragma once
// Gradient clipping by global norm, as torch.nn.utils.clip_grad_norm_ (1.13).
#include <limits>
#include <vector>

#include "heed/autograd/var.h"

namespace heed {

// The norm (norm_type 2, or infinity for the max-norm) of all gradients together, as if
// concatenated; parameters without a gradient are ignored. When
// coef = max_norm / (norm + 1e-6) is below 1 every gradient is multiplied by it. Returns the
// norm before clipping. A non-finite norm throws when error_if_nonfinite, else (as torch)
// the gradients are scaled by the resulting NaN.
double clip_grad_norm(const std::vector<Var>& params, double max_norm, double norm_type = 2.0,
                      bool error_if_nonfinite = false);

// Each gradient on its own: one whose 2-norm exceeds max_norm is multiplied by
// max_norm / (its norm + 1e-6); the others are left alone. Returns the largest norm before
// clipping (NaN if any is). Parameters without a gradient are ignored.
double clip_grad_norm_each(const std::vector<Var>& params, double max_norm);

// The same norm without changing anything.
double grad_norm(const std::vector<Var>& params, double norm_type = 2.0);

constexpr double kInfNorm = std::numeric_limits<double>::infinity();

}  // namespace heed
