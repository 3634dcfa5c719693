#pragma once
// One GRU step on the tape, for decoders that run a time step at a time (PyTorch
// nn.GRUCell semantics, gate order r, z, n). The input projection is an argument, so a
// decoder can compute the parts of x W_ih^T + b_ih it knows in advance (e.g. the embedded
// previous tokens of all steps) in one GEMM and only add the rest per step.
#include <cstdint>
#include <span>

#include "heed/autograd/var.h"
#include "heed/kernels/precision.h"

namespace heed {

// h' from x_proj = x W_ih^T + b_ih (B, 3H) (rows may be strided, e.g. one time step of a
// (B, T, 3H) projection), h (B, H), w_hh (3H, H), b_hh (3H) or undefined.
// mask: empty, or B bytes; rows with 0 keep h (h' = h) and pass its gradient through.
Var gru_step(const Var& x_proj, const Var& h, const Var& w_hh, const Var& b_hh,
             std::span<const std::uint8_t> mask = {},
             kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32);

// nn.GRUCell: gru_step(linear(x, w_ih, b_ih), h, w_hh, b_hh). x (B, in), w_ih (3H, in).
Var gru_cell(const Var& x, const Var& h, const Var& w_ih, const Var& w_hh, const Var& b_ih,
             const Var& b_hh, std::span<const std::uint8_t> mask = {},
             kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32);

}  // namespace heed
