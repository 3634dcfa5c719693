#include "heed/kernels/glimpse.h"

#include <cmath>

#include "heed/kernels/pool2d.h"

namespace heed::kernels {
namespace {

// Calls f(patch index, image index or -1 outside the image) for every pixel of the C
// planes of the side x side patch starting at (r0, c0): the one copy of the patch
// geometry that forward (copy in) and backward (add back) share.
template <typename F>
void patch_pixels(const GlimpseShape& s, std::int64_t side, std::int64_t r0, std::int64_t c0,
                  F&& f) {
  for (std::int64_t c = 0; c < s.C; ++c)
    for (std::int64_t r = 0; r < side; ++r) {
      const std::int64_t ir = r0 + r;
      const bool row_inside = ir >= 0 && ir < s.H;
      for (std::int64_t q = 0; q < side; ++q) {
        const std::int64_t iq = c0 + q;
        f((c * side + r) * side + q,
          row_inside && iq >= 0 && iq < s.W ? (c * s.H + ir) * s.W + iq : std::int64_t{-1});
      }
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

template <typename T>
void glimpse_forward(const T* x, const T* loc, T* y, const GlimpseShape& s, T* patch) {
  for (std::int64_t n = 0; n < s.N; ++n) {
    const T* xn = x + n * s.C * s.H * s.W;
    scales(s, loc, n, [&](std::int64_t side, std::int64_t r0, std::int64_t c0,
                          const Pool2dShape& pool, std::int64_t out) {
      patch_pixels(s, side, r0, c0,
                   [&](std::int64_t k, std::int64_t p) { patch[k] = p >= 0 ? xn[p] : T(0); });
      avg_pool2d_forward(patch, y + out, pool);
    });
  }
}

template <typename T>
void glimpse_backward(const T* loc, const T* dy, T* dx, const GlimpseShape& s, T* patch) {
  for (std::int64_t n = 0; n < s.N; ++n) {
    T* dxn = dx + n * s.C * s.H * s.W;
    scales(s, loc, n, [&](std::int64_t side, std::int64_t r0, std::int64_t c0,
                          const Pool2dShape& pool, std::int64_t out) {
      for (std::int64_t k = 0; k < s.C * side * side; ++k) patch[k] = T(0);
      avg_pool2d_backward(dy + out, patch, pool);
      patch_pixels(s, side, r0, c0, [&](std::int64_t k, std::int64_t p) {
        if (p >= 0) dxn[p] += patch[k];
      });
    });
  }
}

#define HEED_INSTANTIATE(T)                                                                  \
  template void glimpse_forward<T>(const T*, const T*, T*, const GlimpseShape&, T*);         \
  template void glimpse_backward<T>(const T*, const T*, T*, const GlimpseShape&, T*);
HEED_INSTANTIATE(float)
HEED_INSTANTIATE(double)
#undef HEED_INSTANTIATE

}  // namespace heed::kernels
