#include "heed/nn/rnn_cell.h"

#include <cmath>

#include "heed/autograd/gru.h"
#include "heed/autograd/matmul.h"

namespace heed {

RnnCellBase::RnnCellBase(std::int64_t in, std::int64_t H, std::int64_t gates, bool bias,
                         Rng& rng, DType dtype)
    : in_(in), hidden_(H) {
  HEED_CHECK(in > 0 && H > 0, "recurrent cell: sizes must be positive, got input ", in,
             ", hidden ", H);
  const double bound = 1.0 / std::sqrt(static_cast<double>(H));
  weight_ih = register_parameter("weight_ih", init_uniform({gates * H, in}, bound, rng, dtype));
  weight_hh = register_parameter("weight_hh", init_uniform({gates * H, H}, bound, rng, dtype));
  if (bias) {
    bias_ih = register_parameter("bias_ih", init_uniform({gates * H}, bound, rng, dtype));
    bias_hh = register_parameter("bias_hh", init_uniform({gates * H}, bound, rng, dtype));
  }
}

Var RnnCellBase::project_input(const Var& x) const { return linear(x, weight_ih, bias_ih); }

Var RnnCellBase::zeros_state(const Var& like) const {
  return Var(Tensor::zeros({like.dim(0), hidden_}, like.dtype()));
}

GRUCell::GRUCell(std::int64_t input_size, std::int64_t hidden_size, bool bias, Rng& rng,
                 DType dtype)
    : RnnCellBase(input_size, hidden_size, 3, bias, rng, dtype) {}

Var GRUCell::step(const Var& x_proj, const Var& h, std::span<const std::uint8_t> mask) const {
  return gru_step(x_proj, h.defined() ? h : zeros_state(x_proj), weight_hh, bias_hh, mask);
}

Var GRUCell::forward(const Var& x, const Var& h, std::span<const std::uint8_t> mask) const {
  return step(project_input(x), h, mask);
}

LSTMCell::LSTMCell(std::int64_t input_size, std::int64_t hidden_size, bool bias, Rng& rng,
                   DType dtype)
    : RnnCellBase(input_size, hidden_size, 4, bias, rng, dtype) {}

LstmState LSTMCell::step(const Var& x_proj, const LstmState& state,
                         std::span<const std::uint8_t> mask) const {
  LstmState s{state.h.defined() ? state.h : zeros_state(x_proj),
              state.c.defined() ? state.c : zeros_state(x_proj)};
  return lstm_step(x_proj, s, weight_hh, bias_hh, mask);
}

LstmState LSTMCell::forward(const Var& x, const LstmState& state,
                            std::span<const std::uint8_t> mask) const {
  return step(project_input(x), state, mask);
}

}  // namespace heed
