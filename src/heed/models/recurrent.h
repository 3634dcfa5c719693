#pragma once
// Parameter modules for recurrent layers (docs/MODELS.md#recurrent-cells) under PyTorch's names, so the models' state_dict
// keys match the reference: RecurrentStack is nn.GRU / nn.LSTM (weight_ih_l0,
// weight_hh_l0_reverse, ...) run by rnn_sequence; RecurrentCell is nn.GRUCell / nn.LSTMCell
// (weight_ih, weight_hh, bias_ih, bias_hh); CellStack is an nn.ModuleList of cells
// ("cells.0.weight_ih").
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "heed/autograd/rnn_sequence.h"
#include "heed/nn/module.h"

namespace heed {

class RecurrentStack : public Module {
 public:
  // PyTorch's initialisation: every weight and bias uniform(±1/sqrt(hidden)).
  RecurrentStack(RnnCell cell, std::int64_t input, std::int64_t hidden, int layers,
                 bool bidirectional, Rng& rng, DType dtype);

  // x (B, T, input) batch-first; dropout between layers in training (rng needed then);
  // precision: the products' (RnnSequenceOptions).
  RnnSequenceOutput forward(const Var& x, const std::vector<std::int32_t>& lengths, double dropout,
                            bool training, Rng* rng, kernels::MatmulPrecision precision) const;

  RnnCell cell() const { return cell_; }
  std::int64_t hidden() const { return hidden_; }
  int layers() const { return layers_; }
  int directions() const { return bidirectional_ ? 2 : 1; }
  std::int64_t output_dim() const { return hidden_ * directions(); }
  // The parameters of each layer-direction in PyTorch order (l0, l0_reverse, l1, ...).
  const std::vector<RnnWeights>& weights() const { return weights_; }

 private:
  RnnCell cell_;
  std::int64_t hidden_;
  int layers_;
  bool bidirectional_;
  std::vector<RnnWeights> weights_;  // PyTorch order: l0, l0_reverse, l1, ...
};

class RecurrentCell : public Module {
 public:
  RecurrentCell(RnnCell cell, std::int64_t input, std::int64_t hidden, Rng& rng, DType dtype);
  RnnCell cell() const { return cell_; }
  std::int64_t input() const { return input_; }
  std::int64_t hidden() const { return hidden_; }

  Var weight_ih, weight_hh, bias_ih, bias_hh;

 private:
  RnnCell cell_;
  std::int64_t input_, hidden_;
};

class CellStack : public Module {
 public:
  // Cell l reads input0 (l = 0) or hidden (l > 0).
  CellStack(RnnCell cell, std::int64_t input0, std::int64_t hidden, int layers, Rng& rng,
            DType dtype);
  const RecurrentCell& operator[](std::size_t l) const { return *cells_[l]; }
  std::size_t size() const { return cells_.size(); }

 private:
  std::vector<std::unique_ptr<RecurrentCell>> cells_;
};

}  // namespace heed
