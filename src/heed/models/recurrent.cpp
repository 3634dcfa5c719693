#include "heed/models/recurrent.h"

#include <cmath>
#include <string>

namespace heed {

namespace {
std::int64_t gates(RnnCell cell) { return cell == RnnCell::gru ? 3 : 4; }
}  // namespace

RecurrentStack::RecurrentStack(RnnCell cell, std::int64_t input, std::int64_t hidden, int layers,
                               bool bidirectional, Rng& rng, DType dtype)
    : cell_(cell), hidden_(hidden), layers_(layers), bidirectional_(bidirectional) {
  HEED_CHECK(input > 0 && hidden > 0 && layers >= 1,
             "recurrent stack: sizes must be positive, got input ", input, ", hidden ", hidden,
             ", layers ", layers);
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden));
  const std::int64_t G = gates(cell) * hidden;
  for (int l = 0; l < layers; ++l) {
    const std::int64_t in = l == 0 ? input : output_dim();
    for (int d = 0; d < directions(); ++d) {
      const std::string suffix = "_l" + std::to_string(l) + (d == 1 ? "_reverse" : "");
      RnnWeights w;
      w.w_ih = register_parameter("weight_ih" + suffix, init_uniform({G, in}, bound, rng, dtype));
      w.w_hh =
          register_parameter("weight_hh" + suffix, init_uniform({G, hidden}, bound, rng, dtype));
      w.b_ih = register_parameter("bias_ih" + suffix, init_uniform({G}, bound, rng, dtype));
      w.b_hh = register_parameter("bias_hh" + suffix, init_uniform({G}, bound, rng, dtype));
      weights_.push_back(w);
    }
  }
}

RnnSequenceOutput RecurrentStack::forward(const Var& x, const std::vector<std::int32_t>& lengths,
                                          double dropout, bool training, Rng* rng,
                                          kernels::MatmulPrecision precision) const {
  RnnSequenceOptions opt;
  opt.cell = cell_;
  opt.num_layers = layers_;
  opt.bidirectional = bidirectional_;
  opt.dropout = dropout;
  opt.training = training;
  opt.precision = precision;
  return rnn_sequence(opt, x, lengths, weights_, rng);
}

RecurrentCell::RecurrentCell(RnnCell cell, std::int64_t input, std::int64_t hidden, Rng& rng,
                             DType dtype)
    : cell_(cell), input_(input), hidden_(hidden) {
  HEED_CHECK(input > 0 && hidden > 0, "recurrent cell: sizes must be positive, got input ", input,
             ", hidden ", hidden);
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden));
  const std::int64_t G = gates(cell) * hidden;
  weight_ih = register_parameter("weight_ih", init_uniform({G, input}, bound, rng, dtype));
  weight_hh = register_parameter("weight_hh", init_uniform({G, hidden}, bound, rng, dtype));
  bias_ih = register_parameter("bias_ih", init_uniform({G}, bound, rng, dtype));
  bias_hh = register_parameter("bias_hh", init_uniform({G}, bound, rng, dtype));
}

CellStack::CellStack(RnnCell cell, std::int64_t input0, std::int64_t hidden, int layers, Rng& rng,
                     DType dtype) {
  for (int l = 0; l < layers; ++l) {
    cells_.push_back(
        std::make_unique<RecurrentCell>(cell, l == 0 ? input0 : hidden, hidden, rng, dtype));
    register_module(std::to_string(l), *cells_.back());
  }
}

}  // namespace heed
