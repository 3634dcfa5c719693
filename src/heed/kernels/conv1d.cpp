#include "heed/kernels/conv1d.h"

#include <algorithm>

namespace heed::kernels {

template <typename T>
void conv1d_same_forward(const T* x, const T* w, T* y, const Conv1dShape& s) {
  const std::int64_t pad = (s.r - 1) / 2;
  std::fill(y, y + s.B * s.m * s.k, T(0));
  for (std::int64_t b = 0; b < s.B; ++b) {
    const T* xb = x + b * s.m;
    for (std::int64_t j = 0; j < s.m; ++j) {
      T* yj = y + (b * s.m + j) * s.k;
      // Taps i with j + i - pad inside [0, m).
      const std::int64_t i0 = std::max<std::int64_t>(0, pad - j);
      const std::int64_t i1 = std::min<std::int64_t>(s.r, s.m - j + pad);
      for (std::int64_t c = 0; c < s.k; ++c) {
        const T* wc = w + c * s.r;
        T acc = T(0);
        for (std::int64_t i = i0; i < i1; ++i) acc += wc[i] * xb[j + i - pad];
        yj[c] = acc;
      }
    }
  }
}

template <typename T>
void conv1d_same_backward(const T* x, const T* w, const T* dy, T* dx, T* dw,
                          const Conv1dShape& s) {
  const std::int64_t pad = (s.r - 1) / 2;
  for (std::int64_t b = 0; b < s.B; ++b) {
    const T* xb = x + b * s.m;
    T* dxb = dx ? dx + b * s.m : nullptr;
    for (std::int64_t j = 0; j < s.m; ++j) {
      const T* dyj = dy + (b * s.m + j) * s.k;
      const std::int64_t i0 = std::max<std::int64_t>(0, pad - j);
      const std::int64_t i1 = std::min<std::int64_t>(s.r, s.m - j + pad);
      for (std::int64_t c = 0; c < s.k; ++c) {
        const T g = dyj[c];
        const T* wc = w + c * s.r;
        T* dwc = dw ? dw + c * s.r : nullptr;
        for (std::int64_t i = i0; i < i1; ++i) {
          if (dxb) dxb[j + i - pad] += g * wc[i];
          if (dwc) dwc[i] += g * xb[j + i - pad];
        }
      }
    }
  }
}

template void conv1d_same_forward<float>(const float*, const float*, float*, const Conv1dShape&);
template void conv1d_same_forward<double>(const double*, const double*, double*,
                                          const Conv1dShape&);
template void conv1d_same_backward<float>(const float*, const float*, const float*, float*,
                                          float*, const Conv1dShape&);
template void conv1d_same_backward<double>(const double*, const double*, const double*, double*,
                                           double*, const Conv1dShape&);

}  // namespace heed::kernels
