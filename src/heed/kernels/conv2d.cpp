#include "heed/kernels/conv2d.h"

#include <algorithm>

#include "heed/kernels/gemm.h"

namespace heed::kernels {
namespace {

// Calls f(k, p, n) for runs of n entries k, k + 1, ... of col whose pixels in the image
// (c, ih, iw) are p, p + 1, ... , or p = -1 where the run falls on the padding: the one walk of
// im2col's geometry that both directions share. With stride 1 a row (c, i, j) of an output line
// oh is at most three runs (padding, pixels, padding); otherwise every entry is its own run.
template <typename F>
void walk(const Conv2dShape& s, F&& f) {
  const std::int64_t OH = s.OH(), OW = s.OW();
  for (std::int64_t c = 0; c < s.C; ++c)
    for (std::int64_t i = 0; i < s.KH; ++i)
      for (std::int64_t j = 0; j < s.KW; ++j) {
        const std::int64_t row = (c * s.KH + i) * s.KW + j;
        for (std::int64_t oh = 0; oh < OH; ++oh) {
          const std::int64_t ih = oh * s.stride - s.pad + i;
          const std::int64_t k = row * OH * OW + oh * OW;
          if (ih < 0 || ih >= s.H) {
            f(k, std::int64_t{-1}, OW);
            continue;
          }
          const std::int64_t line = (c * s.H + ih) * s.W;
          if (s.stride == 1) {  // iw = ow - pad + j inside [0, W) for ow in [lo, hi)
            const std::int64_t lo = std::clamp<std::int64_t>(s.pad - j, 0, OW);
            const std::int64_t hi = std::clamp<std::int64_t>(s.W + s.pad - j, lo, OW);
            if (lo > 0) f(k, std::int64_t{-1}, lo);
            if (hi > lo) f(k + lo, line + lo - s.pad + j, hi - lo);
            if (OW > hi) f(k + hi, std::int64_t{-1}, OW - hi);
            continue;
          }
          for (std::int64_t ow = 0; ow < OW; ++ow) {
            const std::int64_t iw = ow * s.stride - s.pad + j;
            f(k + ow, iw >= 0 && iw < s.W ? line + iw : std::int64_t{-1}, std::int64_t{1});
          }
        }
      }
}

}  // namespace

template <typename T>
void im2col(const T* x, const Conv2dShape& s, T* col) {
  walk(s, [&](std::int64_t k, std::int64_t p, std::int64_t n) {
    if (p >= 0)
      std::copy(x + p, x + p + n, col + k);
    else
      std::fill(col + k, col + k + n, T(0));
  });
}

template <typename T>
void col2im_add(const T* col, const Conv2dShape& s, T* dx) {
  walk(s, [&](std::int64_t k, std::int64_t p, std::int64_t n) {
    if (p < 0) return;
    T* d = dx + p;
    const T* c = col + k;
    for (std::int64_t e = 0; e < n; ++e) d[e] += c[e];
  });
}

template <typename T>
void conv2d_forward(const T* x, const T* w, const T* b, T* y, const Conv2dShape& s, T* col) {
  const std::int64_t P = s.OH() * s.OW(), K = s.C * s.KH * s.KW;
  for (std::int64_t n = 0; n < s.N; ++n) {
    T* yn = y + n * s.O * P;
    im2col(x + n * s.C * s.H * s.W, s, col);
    if (b)
      for (std::int64_t o = 0; o < s.O; ++o) std::fill(yn + o * P, yn + (o + 1) * P, b[o]);
    gemm<T>({}, false, false, s.O, P, K, T(1), w, K, col, P, b ? T(1) : T(0), yn, P);
  }
}

template <typename T>
void conv2d_backward(const T* x, const T* w, const T* dy, T* dx, T* dw, T* db,
                     const Conv2dShape& s, T* col) {
  const std::int64_t P = s.OH() * s.OW(), K = s.C * s.KH * s.KW;
  for (std::int64_t n = 0; n < s.N; ++n) {
    const T* dyn = dy + n * s.O * P;
    if (db)
      for (std::int64_t o = 0; o < s.O; ++o)
        for (std::int64_t p = 0; p < P; ++p) db[o] += dyn[o * P + p];
    if (dw) {  // dw += dy_n col^T
      im2col(x + n * s.C * s.H * s.W, s, col);
      gemm<T>({}, false, true, s.O, K, P, T(1), dyn, P, col, P, T(1), dw, K);
    }
    if (dx) {  // dcol = w^T dy_n, then back to the pixels
      gemm<T>({}, true, false, K, P, s.O, T(1), w, K, dyn, P, T(0), col, P);
      col2im_add(col, s, dx + n * s.C * s.H * s.W);
    }
  }
}

#define HEED_INSTANTIATE(T)                                                                   \
  template void im2col<T>(const T*, const Conv2dShape&, T*);                                  \
  template void col2im_add<T>(const T*, const Conv2dShape&, T*);                              \
  template void conv2d_forward<T>(const T*, const T*, const T*, T*, const Conv2dShape&, T*); \
  template void conv2d_backward<T>(const T*, const T*, const T*, T*, T*, T*,                  \
                                   const Conv2dShape&, T*);
HEED_INSTANTIATE(float)
HEED_INSTANTIATE(double)
#undef HEED_INSTANTIATE

}  // namespace heed::kernels
