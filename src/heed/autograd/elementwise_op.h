#pragma once
// Element-wise ops on the tape. Binary ops need equal shapes (no implicit broadcasting,
// so shape bugs fail loudly); add_bias is the one broadcast: a vector over the last axis.
// Inputs may be strided views (they are made contiguous); outputs are contiguous.
#include <vector>

#include "heed/autograd/var.h"

namespace heed {

Var add(const Var& a, const Var& b);
Var sub(const Var& a, const Var& b);
Var mul(const Var& a, const Var& b);
// min(a, b) element-wise; the gradient goes to the smaller input, half to each on a tie
// (PyTorch's torch.minimum). The coverage loss's sum_j min(alpha_tj, c_tj) (train/coverage_loss.h).
Var minimum(const Var& a, const Var& b);
// Sum of one or more same-shape Vars in one pass (e.g. several gate contributions).
Var add_n(const std::vector<Var>& xs);

// y[..., c] = x[..., c] + bias[c]; bias has shape (x.dim(-1)).
Var add_bias(const Var& x, const Var& bias);
// y = c x
Var scale(const Var& x, double c);
Var neg(const Var& x);

Var tanh(const Var& x);
Var sigmoid(const Var& x);
Var relu(const Var& x);
Var exp(const Var& x);
Var log(const Var& x);

}  // namespace heed
