#include "heed/kernels/glimpse.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "heed/kernels/pool2d.h"
#include "heed/kernels/row_blocks.h"

namespace heed::kernels {
namespace {

// Calls f(k, p, n) for the row pieces of the C planes of the side x side patch starting at
// (r0, c0): patch elements k .. k + n - 1 are image elements p .. p + n - 1, or lie outside
// the image when p = -1. The one copy of the patch geometry that forward (copy in) and
// backward (add back) share; whole pieces, so that each is one copy or one fill.
template <typename F>
void patch_rows(const GlimpseShape& s, std::int64_t side, std::int64_t r0, std::int64_t c0, F&& f) {
  const std::int64_t lo = std::clamp<std::int64_t>(-c0, 0, side);        // first inside
  const std::int64_t hi = std::clamp<std::int64_t>(s.W - c0, lo, side);  // past the last
  for (std::int64_t c = 0; c < s.C; ++c)
    for (std::int64_t r = 0; r < side; ++r) {
      const std::int64_t k = (c * side + r) * side, ir = r0 + r;
      if (ir < 0 || ir >= s.H) {
        f(k, std::int64_t{-1}, side);
        continue;
      }
      if (lo > 0) f(k, std::int64_t{-1}, lo);
      if (hi > lo) f(k + lo, (c * s.H + ir) * s.W + c0 + lo, hi - lo);
      if (side > hi) f(k + hi, std::int64_t{-1}, side - hi);
    }
}

// Calls f(patch side, its first row and column, the pooling of its blocks, the offset of
// its g x g outputs in y) for each patch of image n, smallest first.
template <typename T, typename F>
void scales(const GlimpseShape& s, const T* loc, std::int64_t n, F&& f) {
  for (std::int64_t i = 0; i < s.k; ++i) {
    const std::int64_t block = std::int64_t{1} << i, side = s.g * block;
    const std::int64_t r0 = glimpse_origin(static_cast<double>(loc[2 * n]), s.H, side);
    const std::int64_t c0 = glimpse_origin(static_cast<double>(loc[2 * n + 1]), s.W, side);
    const Pool2dShape pool{s.C, side, side, block, block};
    f(side, r0, c0, pool, n * s.out_size() + i * s.C * s.g * s.g);
  }
}

}  // namespace

std::int64_t glimpse_origin(double l, std::int64_t extent, std::int64_t side) {
  const double centre = (l + 1) * 0.5 * static_cast<double>(extent);
  return static_cast<std::int64_t>(std::floor(centre - 0.5 * static_cast<double>(side) + 0.5));
}

// Images are independent (each writes its own outputs, or its own image's gradient): blocks of
// them go to the threads, each block with its own patch workspace.
template <typename T>
void glimpse_forward(const T* x, const T* loc, T* y, const GlimpseShape& s) {
  for_row_blocks(s.N, [&](int, std::int64_t n0, std::int64_t n1) {
    std::vector<T> patch(static_cast<std::size_t>(s.workspace()));
    for (std::int64_t n = n0; n < n1; ++n) {
      const T* xn = x + n * s.C * s.H * s.W;
      scales(s, loc, n,
             [&](std::int64_t side, std::int64_t r0, std::int64_t c0, const Pool2dShape& pool,
                 std::int64_t out) {
               patch_rows(s, side, r0, c0, [&](std::int64_t k, std::int64_t p, std::int64_t len) {
                 if (p >= 0)
                   std::copy(xn + p, xn + p + len, patch.data() + k);
                 else
                   std::fill(patch.data() + k, patch.data() + k + len, T(0));
               });
               avg_pool2d_forward(patch.data(), y + out, pool);
             });
    }
  });
}

template <typename T>
void glimpse_backward(const T* loc, const T* dy, T* dx, const GlimpseShape& s) {
  for_row_blocks(s.N, [&](int, std::int64_t n0, std::int64_t n1) {
    std::vector<T> patch(static_cast<std::size_t>(s.workspace()));
    for (std::int64_t n = n0; n < n1; ++n) {
      T* dxn = dx + n * s.C * s.H * s.W;
      scales(s, loc, n,
             [&](std::int64_t side, std::int64_t r0, std::int64_t c0, const Pool2dShape& pool,
                 std::int64_t out) {
               std::fill(patch.begin(), patch.begin() + s.C * side * side, T(0));
               avg_pool2d_backward(dy + out, patch.data(), pool);
               patch_rows(s, side, r0, c0, [&](std::int64_t k, std::int64_t p, std::int64_t len) {
                 if (p >= 0)
                   for (std::int64_t j = 0; j < len; ++j)
                     dxn[p + j] += patch[static_cast<std::size_t>(k + j)];
               });
             });
    }
  });
}

#define HEED_INSTANTIATE(T)                                                      \
  template void glimpse_forward<T>(const T*, const T*, T*, const GlimpseShape&); \
  template void glimpse_backward<T>(const T*, const T*, T*, const GlimpseShape&);
HEED_INSTANTIATE(float)
HEED_INSTANTIATE(double)
#undef HEED_INSTANTIATE

}  // namespace heed::kernels
