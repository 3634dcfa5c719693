#pragma once
// Matrix products on the tape, all through kernels::gemm.
//
// precision: how the products (forward and backward) run, fp32 or bf16 inputs (training's
// mixed precision; kernels/precision.h). A weight frozen for decoding (W.packed(), set by
// decode/frozen_model.h) is handed to the forward product, which then runs on the packed
// copy at the weight's own precision.
#include "heed/autograd/var.h"
#include "heed/base/random.h"
#include "heed/kernels/precision.h"

namespace heed {

// y = x W^T + b (PyTorch nn.Linear layout): x (..., in), W (out, in), b (out) or undefined.
// All leading dimensions of x are folded into one GEMM: whole-sequence work is one call.
Var linear(const Var& x, const Var& W, const Var& b = Var(),
           kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32);

// relu(linear(x, W, b)) as one op: the same numbers, with ReLU applied in place on the
// product's output and its backward folded into the product's (no separate gradient
// buffer for the pre-activation). The feed-forward network's first layer.
Var linear_relu(const Var& x, const Var& W, const Var& b = Var(),
                kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32);

// dropout(relu(linear(x, W, b)), p, rng) as one op: the same numbers and the same draw from
// rng, with the mask applied as ReLU is (in place) and never stored: the backward pass needs
// only the output (kept elements are those > 0). The feed-forward network's first layer in
// training. p in [0, 1].
Var linear_relu_dropout(const Var& x, const Var& W, const Var& b, double p, Rng& rng,
                        kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32);

// y = x W[first, first + count)^T + b[first, first + count): linear with a block of W's rows
// (and of b), e.g. the query or the key and value rows of a stacked attention projection. The
// block is read in place, so a frozen W's packed copy (W.packed()) serves its products as it
// serves W's; a slice of W would be a new variable without one.
Var linear_rows(const Var& x, const Var& W, const Var& b, std::int64_t first, std::int64_t count,
                kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32);

// op(a) op(b) for 2-D (M,K)x(K,N) or batched 3-D (B,M,K)x(B,K,N); op transposes the
// last two dimensions when asked (no copies).
Var matmul(const Var& a, const Var& b, bool trans_a = false, bool trans_b = false,
           kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32);

}  // namespace heed
