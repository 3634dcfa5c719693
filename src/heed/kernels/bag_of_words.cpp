#include "heed/kernels/bag_of_words.h"

#include <vector>

namespace heed::kernels {

namespace {

// The weights l_kj of each row length J met in one call, computed once per length (the rows'
// lengths vary from row to row, and the weights cost more than the sums they weight): block
// (J, dim) row-major. Without position encoding every weight is 1: the callers add the rows.
template <typename T>
class PositionWeights {
 public:
  PositionWeights(std::int64_t width, std::int64_t dim)
      : dim_(dim), offset_(static_cast<std::size_t>(width + 1), -1) {}

  // The block of rows of J words, 1 <= J <= width.
  const T* of(std::int64_t J) {
    std::int64_t& at = offset_[static_cast<std::size_t>(J)];
    if (at < 0) {
      at = static_cast<std::int64_t>(values_.size());
      values_.resize(values_.size() + static_cast<std::size_t>(J * dim_));
      T* l = values_.data() + at;
      for (std::int64_t j = 0; j < J; ++j)
        for (std::int64_t k = 0; k < dim_; ++k)
          l[j * dim_ + k] = static_cast<T>(position_weight(j + 1, J, k + 1, dim_));
    }
    return values_.data() + at;
  }

 private:
  std::int64_t dim_;
  std::vector<std::int64_t> offset_;  // by J: where its block starts in values_, or -1
  std::vector<T> values_;
};

}  // namespace

template <typename T>
void bag_of_words(const T* table, const T* temporal, const WordRows& rows, std::int64_t dim,
                  bool position, T* out) {
  PositionWeights<T> weights(rows.width, dim);
  for (std::int64_t r = 0; r < rows.rows; ++r) {
    T* __restrict y = out + r * dim;
    for (std::int64_t k = 0; k < dim; ++k) y[k] = T(0);
    const std::int64_t J = rows.lengths[r];
    const std::int32_t* ids = rows.ids + r * rows.width;
    if (J > 0 && position) {
      const T* l = weights.of(J);
      for (std::int64_t j = 0; j < J; ++j) {
        const T* __restrict e = table + static_cast<std::int64_t>(ids[j]) * dim;
        const T* __restrict w = l + j * dim;
        for (std::int64_t k = 0; k < dim; ++k) y[k] += w[k] * e[k];
      }
    } else {
      for (std::int64_t j = 0; j < J; ++j) {
        const T* __restrict e = table + static_cast<std::int64_t>(ids[j]) * dim;
        for (std::int64_t k = 0; k < dim; ++k) y[k] += e[k];
      }
    }
    if (rows.time && rows.time[r] >= 0) {
      const T* __restrict t = temporal + static_cast<std::int64_t>(rows.time[r]) * dim;
      for (std::int64_t k = 0; k < dim; ++k) y[k] += t[k];
    }
  }
}

template <typename T>
void bag_of_words_backward(const T* dout, const WordRows& rows, std::int64_t dim, bool position,
                           T* dtable, T* dtemporal) {
  PositionWeights<T> weights(rows.width, dim);
  for (std::int64_t r = 0; r < rows.rows; ++r) {
    const T* __restrict g = dout + r * dim;
    const std::int64_t J = rows.lengths[r];
    if (dtable && J > 0) {
      const std::int32_t* ids = rows.ids + r * rows.width;
      if (position) {
        const T* l = weights.of(J);
        for (std::int64_t j = 0; j < J; ++j) {
          T* __restrict e = dtable + static_cast<std::int64_t>(ids[j]) * dim;
          const T* __restrict w = l + j * dim;
          for (std::int64_t k = 0; k < dim; ++k) e[k] += w[k] * g[k];
        }
      } else {
        for (std::int64_t j = 0; j < J; ++j) {
          T* __restrict e = dtable + static_cast<std::int64_t>(ids[j]) * dim;
          for (std::int64_t k = 0; k < dim; ++k) e[k] += g[k];
        }
      }
    }
    if (dtemporal && rows.time && rows.time[r] >= 0) {
      T* __restrict t = dtemporal + static_cast<std::int64_t>(rows.time[r]) * dim;
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
