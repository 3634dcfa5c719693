#pragma once
// Encoder: the first part of every encoder–decoder (docs/MODELS.md#encoders). It turns a
// source batch into annotations, one per source position, and the final states a decoder
// may start from. Today's encoder reads tokens (TextEncoder); an image encoder plugs in here
// with a grid of annotations.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/models/run_mode.h"
#include "heed/models/token_batch.h"
#include "heed/nn/module.h"

namespace heed {

struct EncoderOutput {
  Var annotations;                    // H (B, m, dk)
  std::vector<std::int64_t> lengths;  // each row's real positions (the mask), in [1, m]
  Var h_n, c_n;                       // final states (layers * directions, B, d); c_n LSTM only
  int layers = 1;
  int directions = 1;

  // The final state of layer l, direction d (0 forward, 1 reverse): (B, d). For the reverse
  // direction that is its state at the first source position.
  Var final_h(int layer, int direction) const;
  Var final_c(int layer, int direction) const;
};

// A part of a model: its parameter modules under their names, in the order they are
// registered (the checkpoint layout and the optimiser's parameter order).
using NamedModules = std::vector<std::pair<std::string, Module*>>;

class Encoder {
 public:
  virtual ~Encoder() = default;
  virtual EncoderOutput encode(const TokenBatch& src, const RunMode& mode) const = 0;
  virtual std::int64_t output_dim() const = 0;  // dk
  virtual NamedModules modules() = 0;
  // Every head of every self-attention layer, for an encoder with several (the
  // Transformer's): per layer (B, heads, m, m). Empty for the others.
  virtual std::vector<Tensor> attention_heads(const TokenBatch& src, const RunMode& mode) const {
    (void)src, (void)mode;
    return {};
  }
};

}  // namespace heed
