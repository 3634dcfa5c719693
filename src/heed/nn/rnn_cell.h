#pragma once
// GRUCell and LSTMCell: one recurrent step, PyTorch's nn.GRUCell / nn.LSTMCell (parameters
// weight_ih (G, in), weight_hh (G, H), bias_ih, bias_hh (G); G = 3H for r,z,n or 4H for
// i,f,g,o). Decoders call forward once per time step, or split it: project_input for the
// parts of the input known in advance (all steps in one GEMM), then step per time step.
#include <cstdint>
#include <span>

#include "heed/autograd/lstm.h"
#include "heed/nn/module.h"

namespace heed {

// The parameters GRUCell and LSTMCell share: PyTorch's initialisation draws weight_ih,
// weight_hh, bias_ih, bias_hh from rng in that order, each uniform(±1/sqrt(H)).
class RnnCellBase : public Module {
 public:
  // x (..., in) -> x W_ih^T + b_ih (..., G).
  Var project_input(const Var& x) const;

  std::int64_t input_size() const { return in_; }
  std::int64_t hidden_size() const { return hidden_; }

  Var weight_ih, weight_hh, bias_ih, bias_hh;  // biases undefined without bias

 protected:
  RnnCellBase(std::int64_t input_size, std::int64_t hidden_size, std::int64_t gates, bool bias,
              Rng& rng, DType dtype);
  Var zeros_state(const Var& like) const;  // (B, H) zeros, B from like's first dimension

 private:
  std::int64_t in_, hidden_;
};

class GRUCell : public RnnCellBase {
 public:
  GRUCell(std::int64_t input_size, std::int64_t hidden_size, bool bias, Rng& rng,
          DType dtype = DType::f32);

  // x (B, in), h (B, H) or undefined (zeros) -> h' (B, H). mask: empty, or B bytes; rows
  // with 0 keep h.
  Var forward(const Var& x, const Var& h, std::span<const std::uint8_t> mask = {}) const;
  // h' from a projected input (B, 3H) (rows may be strided).
  Var step(const Var& x_proj, const Var& h, std::span<const std::uint8_t> mask = {}) const;
};

class LSTMCell : public RnnCellBase {
 public:
  LSTMCell(std::int64_t input_size, std::int64_t hidden_size, bool bias, Rng& rng,
           DType dtype = DType::f32);

  // x (B, in), state ((B, H) each; undefined parts are zeros) -> (h', c').
  LstmState forward(const Var& x, const LstmState& state,
                    std::span<const std::uint8_t> mask = {}) const;
  // (h', c') from a projected input (B, 4H) (rows may be strided).
  LstmState step(const Var& x_proj, const LstmState& state,
                 std::span<const std::uint8_t> mask = {}) const;
};

}  // namespace heed
