#pragma once
// Whole-sequence GRU/LSTM on the tape (PyTorch nn.GRU / nn.LSTM over a packed batch).
//
// One op runs every layer and direction of a stack over a padded batch-first batch and
// records one tape entry; backward is BPTT inside the op. Per layer-direction the input
// projection of all time steps is one GEMM and each time step is one fused kernel call
// (recurrent GEMM + gates). Rows are sorted by length internally so that step t only
// computes the sequences still running (as PyTorch's packed sequences do): nothing is
// computed for padding.
//
// Padding semantics are those of pack_padded_sequence / pad_packed_sequence: outputs at
// padded positions are 0; the forward direction's final state is the state at each
// sequence's last real token; the reverse direction starts at each sequence's own last
// token (position len - 1) and runs back to position 0, which gives its final state.
#include <cstdint>
#include <span>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/base/enum_names.h"
#include "heed/base/random.h"
#include "heed/kernels/precision.h"

namespace heed {

enum class RnnCell { gru, lstm };
inline constexpr EnumName<RnnCell> kRnnCellNames[] = {{RnnCell::gru, "gru"}, {RnnCell::lstm, "lstm"}};
constexpr std::span<const EnumName<RnnCell>> enum_names(RnnCell) { return kRnnCellNames; }

// The parameters of one layer-direction, PyTorch layout: w_ih (G, in), w_hh (G, H),
// b_ih, b_hh (G) or undefined; G = 3H (GRU, gates r z n) or 4H (LSTM, gates i f g o).
struct RnnWeights {
  Var w_ih, w_hh, b_ih, b_hh;
};

struct RnnSequenceOptions {
  RnnCell cell = RnnCell::gru;
  int num_layers = 1;
  bool bidirectional = false;
  double dropout = 0.0;   // on each layer's output feeding the next layer, in training only
  bool training = false;
  // The products' precision, forward and backward (bf16 in mixed-precision training). A
  // weight frozen for decoding (Var::packed()) runs its forward products on the packed copy.
  kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32;
};

struct RnnSequenceOutput {
  Var output;  // (B, T, dirs * H): the last layer's states, [forward; reverse], 0 at padding
  Var h_n;     // (num_layers * dirs, B, H), layer-major, direction-minor (PyTorch h_n)
  Var c_n;     // LSTM only: same layout as h_n
};

// input (B, T, in) batch-first; lengths: B entries in [0, T] (0 gives zero outputs and the
// initial state as final state); weights: num_layers * dirs entries in PyTorch order
// (l0, l0_reverse, l1, ...); rng: needed when dropout applies; h0, c0: undefined (zeros) or
// (num_layers * dirs, B, H).
RnnSequenceOutput rnn_sequence(const RnnSequenceOptions& options, const Var& input,
                               const std::vector<std::int32_t>& lengths,
                               const std::vector<RnnWeights>& weights, Rng* rng = nullptr,
                               const Var& h0 = Var(), const Var& c0 = Var());

}  // namespace heed
