#pragma once
// The glimpse sensor of the recurrent attention model (docs/MODELS.md, "Glimpse sensor"):
// from each image of a batch x (N, C, H, W), k square patches centred at the image's
// location, patch i (0-based) of side g 2^i, each averaged down to g x g over blocks of
// 2^i x 2^i pixels (kernels/pool2d.h); pixels outside the image count as 0.
// y (N, k, C, g, g). The location is an input only: nothing is differentiated in it.
//
// Location l = (l_row, l_col) in [-1, 1]^2: (-1, -1) is the top-left corner of the image,
// (1, 1) its bottom-right corner, (0, 0) its centre. The centre in pixel coordinates is
// c = (l + 1) / 2 * H (rows; W for columns), pixel r covering [r, r + 1); a patch of side S
// starts at row floor(c - S / 2 + 1/2), the nearest integer to c - S / 2.
#include <cstdint>

namespace heed::kernels {

struct GlimpseShape {
  std::int64_t N = 0, C = 0, H = 0, W = 0;
  std::int64_t g = 1, k = 1;  // the smallest patch's side, the number of patches
  std::int64_t largest() const { return g << (k - 1); }
  std::int64_t out_size() const { return k * C * g * g; }  // per image
  std::int64_t workspace() const { return C * largest() * largest(); }
};

// The first row (or column) of a patch of side `side` centred at l on an axis of `extent`
// pixels.
std::int64_t glimpse_origin(double l, std::int64_t extent, std::int64_t side);

// loc (N, 2), y (N, k C g g). Blocks of images run in parallel (kernels/row_blocks.h), each
// with a workspace() patch of its own.
template <typename T>
void glimpse_forward(const T* x, const T* loc, T* y, const GlimpseShape& s);

// dx += the gradient of y w.r.t. x, in parallel as forward.
template <typename T>
void glimpse_backward(const T* loc, const T* dy, T* dx, const GlimpseShape& s);

}  // namespace heed::kernels
