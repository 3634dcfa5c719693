#pragma once
// Matrix products on the tape, all through kernels::gemm.
//
// precision: how the products (forward and backward) run, fp32 or bf16 inputs (training's
// mixed precision; kernels/precision.h). A weight frozen for decoding (W.packed(), set by
// decode/frozen_model.h) is handed to the forward product, which then runs on the packed
// copy at the weight's own precision.
#include "heed/autograd/var.h"
#include "heed/kernels/precision.h"

namespace heed {

// y = x W^T + b (PyTorch nn.Linear layout): x (..., in), W (out, in), b (out) or undefined.
// All leading dimensions of x are folded into one GEMM: whole-sequence work is one call.
// block_of: the weight W is a block (a slice of rows, a view) of, when W itself is not a
// parameter (a slice of nn.MultiheadAttention's in_proj_weight): its packed handle serves W.
Var linear(const Var& x, const Var& W, const Var& b = Var(),
           kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32,
           const Var& block_of = Var());

// op(a) op(b) for 2-D (M,K)x(K,N) or batched 3-D (B,M,K)x(B,K,N); op transposes the
// last two dimensions when asked (no copies).
Var matmul(const Var& a, const Var& b, bool trans_a = false, bool trans_b = false,
           kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32);

}  // namespace heed
