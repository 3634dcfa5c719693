#pragma once
// conv2d: 2-D convolution of NCHW images (docs/ENGINE.md, "Images"; kernels/conv2d.h).
// x (N, C, H, W), weight (O, C, KH, KW), bias (O) or undefined; y (N, O, OH, OW) with
// OH = (H + 2 padding - KH) / stride + 1, zeros outside the image. Gradients for all three.
#include <cstdint>

#include "heed/autograd/var.h"

namespace heed {

struct Conv2dOptions {
  std::int64_t stride = 1;
  std::int64_t padding = 0;  // zero rows and columns added on each side
};

Var conv2d(const Var& x, const Var& weight, const Var& bias = Var(), Conv2dOptions options = {});

}  // namespace heed
