#pragma once
// max_pool2d and avg_pool2d over the last two dimensions of (N, C, H, W) (or any 4-D)
// input, square windows of `kernel` pixels every `stride` pixels, no padding
// (docs/ENGINE.md, "Images"; kernels/pool2d.h). y (N, C, OH, OW), OH = (H - kernel) /
// stride + 1. max_pool2d's gradient goes to each window's first maximum.
#include <cstdint>

#include "heed/autograd/var.h"

namespace heed {

Var max_pool2d(const Var& x, std::int64_t kernel, std::int64_t stride);
Var avg_pool2d(const Var& x, std::int64_t kernel, std::int64_t stride);

}  // namespace heed
