#pragma once
// glimpse: the retina of the recurrent attention model (docs/MODELS.md, "Glimpse sensor";
// kernels/glimpse.h). images (N, C, H, W), locations (N, 2) with rows (l_row, l_col) in
// [-1, 1]^2, (-1, -1) the top-left corner and (1, 1) the bottom-right one; the output
// (N, k C g g) holds, per image, k patches centred at its location, patch i (0-based) of
// side g 2^i averaged down to g x g, zeros outside the image, smallest patch first, each
// as C planes of g x g.
//
// The gradient flows to the images only. The locations are a plain Tensor, not a Var: the
// patch is piecewise constant in them (whole pixels), so a hard-attention model trains its
// location policy with REINFORCE, never through the sensor.
#include <cstdint>

#include "heed/autograd/var.h"

namespace heed {

struct GlimpseOptions {
  std::int64_t size = 8;     // g: the side of the smallest patch and of every output patch
  std::int64_t patches = 1;  // k: the number of patches, sides g, 2g, 4g, ...
};

Var glimpse(const Var& images, const Tensor& locations, GlimpseOptions options = {});

}  // namespace heed
