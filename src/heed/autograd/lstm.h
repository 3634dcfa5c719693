#pragma once
// One LSTM step on the tape, for decoders that run a time step at a time (PyTorch
// nn.LSTMCell semantics, gate order i, f, g, o). As with gru_step, the input projection is
// an argument so that a decoder can precompute what it knows in advance.
#include <cstdint>
#include <span>

#include "heed/autograd/var.h"
#include "heed/kernels/precision.h"

namespace heed {

struct LstmState {
  Var h;  // (B, H)
  Var c;  // (B, H)
};

// (h', c') from x_proj = x W_ih^T + b_ih (B, 4H) (rows may be strided), state (B, H) each,
// w_hh (4H, H), b_hh (4H) or undefined. mask: empty, or B bytes; rows with 0 keep their
// state and pass its gradients through.
LstmState lstm_step(const Var& x_proj, const LstmState& state, const Var& w_hh, const Var& b_hh,
                    std::span<const std::uint8_t> mask = {},
                    kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32);

// nn.LSTMCell: lstm_step(linear(x, w_ih, b_ih), state, w_hh, b_hh). x (B, in), w_ih (4H, in).
LstmState lstm_cell(const Var& x, const LstmState& state, const Var& w_ih, const Var& w_hh,
                    const Var& b_ih, const Var& b_hh, std::span<const std::uint8_t> mask = {},
                    kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32);

}  // namespace heed
