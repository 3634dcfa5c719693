#include "heed/kernels/bag_of_words.h"

#include <vector>

namespace heed::kernels {

namespace {
// The weights l_kj of a row of J words, (J, dim) row-major.
template <typename T>
void position_weights(std::int64_t J, std::int64_t dim, bool position, std::vector<T>& l) {
  l.assign(static_cast<std::size_t>(J * dim), T(1));
  if (!position) return;
  for (std::int64_t j = 0; j < J; ++j)
    for (std::int64_t k = 0; k < dim; ++k)
      l[static_cast<std::size_t>(j * dim + k)] = static_cast<T>(position_weight(j + 1, J, k + 1, dim));
}
}  // namespace

template <typename T>
void bag_of_words(const T* table, const T* temporal, const WordRows& rows, std::int64_t dim,
                  bool position, T* out) {
  std::vector<T> l;
  std::int64_t weights_for = -1;  // the row length l was made for
  for (std::int64_t r = 0; r < rows.rows; ++r) {
    T* y = out + r * dim;
    for (std::int64_t k = 0; k < dim; ++k) y[k] = T(0);
    const std::int64_t J = rows.lengths[r];
    if (J > 0 && J != weights_for) {
      position_weights(J, dim, position, l);
      weights_for = J;
    }
    const std::int32_t* ids = rows.ids + r * rows.width;
    for (std::int64_t j = 0; j < J; ++j) {
      const T* e = table + static_cast<std::int64_t>(ids[j]) * dim;
      const T* w = l.data() + j * dim;
      for (std::int64_t k = 0; k < dim; ++k) y[k] += w[k] * e[k];
    }
    if (rows.time && rows.time[r] >= 0) {
      const T* t = temporal + static_cast<std::int64_t>(rows.time[r]) * dim;
      for (std::int64_t k = 0; k < dim; ++k) y[k] += t[k];
    }
  }
}

template <typename T>
void bag_of_words_backward(const T* dout, const WordRows& rows, std::int64_t dim, bool position,
                           T* dtable, T* dtemporal) {
  std::vector<T> l;
  std::int64_t weights_for = -1;
  for (std::int64_t r = 0; r < rows.rows; ++r) {
    const T* g = dout + r * dim;
    const std::int64_t J = rows.lengths[r];
    if (dtable && J > 0) {
      if (J != weights_for) {
        position_weights(J, dim, position, l);
        weights_for = J;
      }
      const std::int32_t* ids = rows.ids + r * rows.width;
      for (std::int64_t j = 0; j < J; ++j) {
        T* e = dtable + static_cast<std::int64_t>(ids[j]) * dim;
        const T* w = l.data() + j * dim;
        for (std::int64_t k = 0; k < dim; ++k) e[k] += w[k] * g[k];
      }
    }
    if (dtemporal && rows.time && rows.time[r] >= 0) {
      T* t = dtemporal + static_cast<std::int64_t>(rows.time[r]) * dim;
      for (std::int64_t k = 0; k < dim; ++k) t[k] += g[k];
    }
  }
}

#define HEED_BAG_OF_WORDS(T)                                                              \
  template void bag_of_words<T>(const T*, const T*, const WordRows&, std::int64_t, bool, T*); \
  template void bag_of_words_backward<T>(const T*, const WordRows&, std::int64_t, bool, T*, T*);
HEED_BAG_OF_WORDS(float)
HEED_BAG_OF_WORDS(double)
#undef HEED_BAG_OF_WORDS

}  // namespace heed::kernels
