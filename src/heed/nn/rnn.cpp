#include "heed/nn/rnn.h"

#include <cmath>
#include <string>

namespace heed {

RnnLayerBase::RnnLayerBase(RnnCell cell, std::int64_t input_size, std::int64_t hidden_size,
                           const RnnOptions& options, Rng& rng)
    : cell_(cell), in_(input_size), hidden_(hidden_size), options_(options) {
  HEED_CHECK(input_size > 0 && hidden_size > 0, "recurrent layer: sizes must be positive, got input ",
             input_size, ", hidden ", hidden_size);
  HEED_CHECK(options.num_layers >= 1, "recurrent layer: num_layers must be at least 1, got ",
             options.num_layers);
  HEED_CHECK(options.dropout >= 0 && options.dropout < 1,
             "recurrent layer: dropout must be in [0, 1), got ", options.dropout);
  const std::int64_t G = (cell == RnnCell::lstm ? 4 : 3) * hidden_size;
  const double bound = 1.0 / std::sqrt(static_cast<double>(hidden_size));
  const DType dt = options.dtype;
  for (int l = 0; l < options.num_layers; ++l)
    for (int d = 0; d < num_directions(); ++d) {
      const std::string suffix = "_l" + std::to_string(l) + (d == 1 ? "_reverse" : "");
      const std::int64_t in = l == 0 ? input_size : num_directions() * hidden_size;
      RnnWeights w;
      w.w_ih = register_parameter("weight_ih" + suffix, init_uniform({G, in}, bound, rng, dt));
      w.w_hh = register_parameter("weight_hh" + suffix,
                                  init_uniform({G, hidden_size}, bound, rng, dt));
      if (options.bias) {
        w.b_ih = register_parameter("bias_ih" + suffix, init_uniform({G}, bound, rng, dt));
        w.b_hh = register_parameter("bias_hh" + suffix, init_uniform({G}, bound, rng, dt));
      }
      weights_.push_back(w);
    }
}

RnnOutput RnnLayerBase::run(const Var& input, const std::vector<std::int32_t>& lengths, Rng& rng,
                            const Var& h0, const Var& c0) const {
  HEED_CHECK(input.value().ndim() == 3 && input.dim(2) == in_, "recurrent layer: input must be (B, T, ",
             in_, "), got ", input.shape().str());
  RnnSequenceOptions opt;
  opt.cell = cell_;
  opt.num_layers = options_.num_layers;
  opt.bidirectional = options_.bidirectional;
  opt.dropout = options_.dropout;
  opt.training = training();
  return rnn_sequence(opt, input, lengths, weights_, &rng, h0, c0);
}

GRU::GRU(std::int64_t input_size, std::int64_t hidden_size, const RnnOptions& options, Rng& rng)
    : RnnLayerBase(RnnCell::gru, input_size, hidden_size, options, rng) {}

RnnOutput GRU::forward(const Var& input, const std::vector<std::int32_t>& lengths, Rng& rng,
                       const Var& h0) const {
  return run(input, lengths, rng, h0, Var());
}

LSTM::LSTM(std::int64_t input_size, std::int64_t hidden_size, const RnnOptions& options,
           Rng& rng)
    : RnnLayerBase(RnnCell::lstm, input_size, hidden_size, options, rng) {}

RnnOutput LSTM::forward(const Var& input, const std::vector<std::int32_t>& lengths, Rng& rng,
                        const Var& h0, const Var& c0) const {
  return run(input, lengths, rng, h0, c0);
}

}  // namespace heed
