#pragma once
// Reductions on the tape: over all elements or over one dimension.
#include "heed/autograd/var.h"

namespace heed {

// Sum / mean of all elements: a 0-d (scalar) Var, as in PyTorch, usable as a loss.
Var sum(const Var& x);
Var mean(const Var& x);

// Sum / mean over dimension dim (negative counts from the end); the dimension is dropped
// unless keepdim (then it stays with size 1).
Var sum(const Var& x, int dim, bool keepdim = false);
Var mean(const Var& x, int dim, bool keepdim = false);

}  // namespace heed
