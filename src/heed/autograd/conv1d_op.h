#pragma once
// conv1d_same: 1-D convolution of single-channel sequences, same length, channels last
// (kernels/conv1d.h): x (B, m), weight (k, 1, r) with r odd (PyTorch's nn.Conv1d(1, k, r,
// padding=(r - 1) / 2, bias=False) layout), y (B, m, k), zeros outside the sequence. Gradients
// for both. The location features of docs/MODELS.md#location-aware-attention.
#include "heed/autograd/var.h"

namespace heed {

Var conv1d_same(const Var& x, const Var& weight);

}  // namespace heed
