#pragma once
// Matrix products on the tape, all through kernels::gemm.
#include "heed/autograd/var.h"

namespace heed {

// y = x W^T + b (PyTorch nn.Linear layout): x (..., in), W (out, in), b (out) or undefined.
// All leading dimensions of x are folded into one GEMM: whole-sequence work is one call.
Var linear(const Var& x, const Var& W, const Var& b = Var());

// op(a) op(b) for 2-D (M,K)x(K,N) or batched 3-D (B,M,K)x(B,K,N); op transposes the
// last two dimensions when asked (no copies).
Var matmul(const Var& a, const Var& b, bool trans_a = false, bool trans_b = false);

}  // namespace heed
