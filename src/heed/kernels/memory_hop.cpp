#include "heed/kernels/memory_hop.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace heed::kernels {

template <typename T>
void memory_hop(const T* u, const T* m, const T* c, const HopShape& s, T* p, T* o) {
  const std::int64_t S = s.slots, d = s.dim;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const std::int64_t n = s.counts[b];
    const T* ub = u + b * d;
    T* pb = p + b * S;
    T* ob = o + b * d;
    for (std::int64_t i = 0; i < S; ++i) pb[i] = T(0);
    for (std::int64_t k = 0; k < d; ++k) ob[k] = T(0);
    if (n == 0) continue;
    for (std::int64_t i = 0; i < n; ++i) {
      const T* mi = m + (b * S + i) * d;
      T dot = T(0);
      for (std::int64_t k = 0; k < d; ++k) dot += ub[k] * mi[k];
      pb[i] = dot;
    }
    if (!s.linear) {
      const std::int64_t empty = s.pad_to > n ? s.pad_to - n : 0;
      T top = *std::max_element(pb, pb + n);
      if (empty > 0) top = std::max(top, T(0));
      T sum = static_cast<T>(empty) * std::exp(-top);  // the empty slots' score 0
      for (std::int64_t i = 0; i < n; ++i) sum += pb[i] = std::exp(pb[i] - top);
      for (std::int64_t i = 0; i < n; ++i) pb[i] /= sum;
    }
    for (std::int64_t i = 0; i < n; ++i) {
      const T* ci = c + (b * S + i) * d;
      const T w = pb[i];
      for (std::int64_t k = 0; k < d; ++k) ob[k] += w * ci[k];
    }
  }
}

template <typename T>
void memory_hop_backward(const T* u, const T* m, const T* c, const T* p, const T* do_,
                         const HopShape& s, T* du, T* dm, T* dc) {
  const std::int64_t S = s.slots, d = s.dim;
  std::vector<T> ds(static_cast<std::size_t>(S));
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const std::int64_t n = s.counts[b];
    const T* ub = u + b * d;
    const T* pb = p + b * S;
    const T* gb = do_ + b * d;
    // dp_i = do · c_i; dc_i += p_i do.
    T weighted = T(0);  // sum_i p_i dp_i
    for (std::int64_t i = 0; i < n; ++i) {
      const T* ci = c + (b * S + i) * d;
      T dp = T(0);
      for (std::int64_t k = 0; k < d; ++k) dp += gb[k] * ci[k];
      ds[static_cast<std::size_t>(i)] = dp;
      weighted += pb[i] * dp;
      if (dc) {
        T* dci = dc + (b * S + i) * d;
        for (std::int64_t k = 0; k < d; ++k) dci[k] += pb[i] * gb[k];
      }
    }
    // The score's gradient: the softmax's Jacobian (or the identity in linear start). Empty
    // slots of pad_to read nothing (dp = 0): they add nothing to `weighted`.
    for (std::int64_t i = 0; i < n; ++i) {
      T& g = ds[static_cast<std::size_t>(i)];
      if (!s.linear) g = pb[i] * (g - weighted);
      const T* mi = m + (b * S + i) * d;
      if (du)
        for (std::int64_t k = 0; k < d; ++k) du[b * d + k] += g * mi[k];
      if (dm) {
        T* dmi = dm + (b * S + i) * d;
        for (std::int64_t k = 0; k < d; ++k) dmi[k] += g * ub[k];
      }
    }
  }
}

#define HEED_MEMORY_HOP(T)                                                                  \
  template void memory_hop<T>(const T*, const T*, const T*, const HopShape&, T*, T*);       \
  template void memory_hop_backward<T>(const T*, const T*, const T*, const T*, const T*,    \
                                       const HopShape&, T*, T*, T*);
HEED_MEMORY_HOP(float)
HEED_MEMORY_HOP(double)
#undef HEED_MEMORY_HOP

}  // namespace heed::kernels
