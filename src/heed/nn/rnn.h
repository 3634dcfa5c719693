#pragma once
// GRU and LSTM layers: PyTorch's nn.GRU / nn.LSTM run over a padded batch-first batch as
// pack_padded_sequence would (see autograd/rnn_sequence.h for the padding semantics).
// Parameters per layer l and direction: weight_ih_l{l}, weight_hh_l{l}, bias_ih_l{l},
// bias_hh_l{l}, with the suffix _reverse for the reverse direction, so state_dict keys move
// between heed and PyTorch unchanged. Layer l+1 reads [forward; reverse] of layer l.
#include <cstdint>
#include <vector>

#include "heed/autograd/rnn_sequence.h"
#include "heed/nn/module.h"

namespace heed {

struct RnnOptions {
  int num_layers = 1;
  bool bidirectional = false;
  double dropout = 0.0;  // on each layer's outputs but the last, in training (as PyTorch)
  bool bias = true;
  DType dtype = DType::f32;
};

// outputs (B, T, dirs * H), zeros at padding; h_n, c_n (num_layers * dirs, B, H),
// layer-major, direction-minor; c_n only for LSTM.
using RnnOutput = RnnSequenceOutput;

class RnnLayerBase : public Module {
 public:
  std::int64_t input_size() const { return in_; }
  std::int64_t hidden_size() const { return hidden_; }
  int num_layers() const { return options_.num_layers; }
  bool bidirectional() const { return options_.bidirectional; }
  int num_directions() const { return options_.bidirectional ? 2 : 1; }
  // The parameters of each layer-direction in PyTorch order (l0, l0_reverse, l1, ...).
  const std::vector<RnnWeights>& layer_weights() const { return weights_; }

 protected:
  // PyTorch's initialisation: every parameter uniform(±1/sqrt(H)), drawn from rng in the
  // order of the parameter names.
  RnnLayerBase(RnnCell cell, std::int64_t input_size, std::int64_t hidden_size,
               const RnnOptions& options, Rng& rng);
  RnnOutput run(const Var& input, const std::vector<std::int32_t>& lengths, Rng& rng,
                const Var& h0, const Var& c0) const;

 private:
  RnnCell cell_;
  std::int64_t in_, hidden_;
  RnnOptions options_;
  std::vector<RnnWeights> weights_;
};

class GRU : public RnnLayerBase {
 public:
  GRU(std::int64_t input_size, std::int64_t hidden_size, const RnnOptions& options, Rng& rng);
  // input (B, T, in) batch-first, lengths (B entries in [0, T]), rng for dropout between
  // layers, h0 (num_layers * dirs, B, H) or undefined (zeros).
  RnnOutput forward(const Var& input, const std::vector<std::int32_t>& lengths, Rng& rng,
                    const Var& h0 = Var()) const;
};

class LSTM : public RnnLayerBase {
 public:
  LSTM(std::int64_t input_size, std::int64_t hidden_size, const RnnOptions& options, Rng& rng);
  RnnOutput forward(const Var& input, const std::vector<std::int32_t>& lengths, Rng& rng,
                    const Var& h0 = Var(), const Var& c0 = Var()) const;
};

}  // namespace heed
