#include "heed/kernels/pool2d.h"

namespace heed::kernels {
namespace {

// Calls f(output index, input index of the window's top-left pixel) for every window.
template <typename F>
void windows(const Pool2dShape& s, F&& f) {
  const std::int64_t OH = s.OH(), OW = s.OW();
  for (std::int64_t p = 0; p < s.planes; ++p)
    for (std::int64_t oh = 0; oh < OH; ++oh)
      for (std::int64_t ow = 0; ow < OW; ++ow)
        f((p * OH + oh) * OW + ow, (p * s.H + oh * s.stride) * s.W + ow * s.stride);
}

}  // namespace

template <typename T>
void max_pool2d_forward(const T* x, T* y, std::int32_t* argmax, const Pool2dShape& s) {
  windows(s, [&](std::int64_t o, std::int64_t corner) {
    const std::int64_t plane = corner / (s.H * s.W) * (s.H * s.W);
    std::int64_t best = corner;
    for (std::int64_t i = 0; i < s.kernel; ++i)
      for (std::int64_t j = 0; j < s.kernel; ++j) {
        const std::int64_t k = corner + i * s.W + j;
        if (x[k] > x[best]) best = k;
      }
    y[o] = x[best];
    argmax[o] = static_cast<std::int32_t>(best - plane);
  });
}

template <typename T>
void max_pool2d_backward(const T* dy, const std::int32_t* argmax, T* dx, const Pool2dShape& s) {
  const std::int64_t per_plane = s.OH() * s.OW();
  for (std::int64_t o = 0; o < s.planes * per_plane; ++o)
    dx[o / per_plane * s.H * s.W + argmax[o]] += dy[o];
}

template <typename T>
void avg_pool2d_forward(const T* x, T* y, const Pool2dShape& s) {
  const T scale = T(1) / static_cast<T>(s.kernel * s.kernel);
  windows(s, [&](std::int64_t o, std::int64_t corner) {
    T sum = 0;
    for (std::int64_t i = 0; i < s.kernel; ++i)
      for (std::int64_t j = 0; j < s.kernel; ++j) sum += x[corner + i * s.W + j];
    y[o] = sum * scale;
  });
}

template <typename T>
void avg_pool2d_backward(const T* dy, T* dx, const Pool2dShape& s) {
  const T scale = T(1) / static_cast<T>(s.kernel * s.kernel);
  windows(s, [&](std::int64_t o, std::int64_t corner) {
    const T g = dy[o] * scale;
    for (std::int64_t i = 0; i < s.kernel; ++i)
      for (std::int64_t j = 0; j < s.kernel; ++j) dx[corner + i * s.W + j] += g;
  });
}

#define HEED_INSTANTIATE(T)                                                                      \
  template void max_pool2d_forward<T>(const T*, T*, std::int32_t*, const Pool2dShape&);          \
  template void max_pool2d_backward<T>(const T*, const std::int32_t*, T*, const Pool2dShape&);   \
  template void avg_pool2d_forward<T>(const T*, T*, const Pool2dShape&);                         \
  template void avg_pool2d_backward<T>(const T*, T*, const Pool2dShape&);
HEED_INSTANTIATE(float)
HEED_INSTANTIATE(double)
#undef HEED_INSTANTIATE

}  // namespace heed::kernels
