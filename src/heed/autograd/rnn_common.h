#pragma once
// Small helpers shared by the recurrent ops (gru.cpp, lstm.cpp, rnn_sequence.cpp).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "heed/autograd/tape.h"
#include "heed/autograd/var.h"

namespace heed::rnn_detail {

// Row stride of a 2-D tensor whose rows are each contiguous (a time slice of a batch-first
// sequence qualifies); throws naming `what` otherwise.
inline std::int64_t row_stride(const Tensor& t, const char* what) {
  HEED_CHECK(t.ndim() == 2, what, " must be 2-D, got ", t.shape().str());
  HEED_CHECK(t.dim(1) == 1 || t.stride(1) == 1, what, " must have contiguous rows");
  return t.dim(0) == 1 ? t.dim(1) : t.stride(0);
}

inline void check_dtype(const Var& v, DType dtype, const char* op, const char* what) {
  if (v.defined())
    HEED_CHECK(v.dtype() == dtype, op, ": ", what, " is ", dtype_name(v.dtype()), ", expected ",
               dtype_name(dtype));
}

// dst (contiguous) += src (contiguous, same size).
template <typename T>
void add_into(Tensor& dst, const T* src) {
  T* d = dst.data<T>();
  const std::int64_t n = dst.numel();
  for (std::int64_t i = 0; i < n; ++i) d[i] += src[i];
}

// Rows of a time-major (n, B, width) buffer into a batch-major (B, n, width) one, row (t, b)
// to row (b, t): copied, or added when accumulate (a gradient). src rows have stride
// ld_src (>= width), dst rows stride width.
template <typename T>
void time_to_batch_major(const T* src, std::int64_t ld_src, T* dst, std::int64_t B,
                         std::int64_t n, std::int64_t width, bool accumulate) {
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t t = 0; t < n; ++t) {
      const T* from = src + (t * B + b) * ld_src;
      T* to = dst + (b * n + t) * width;
      if (accumulate)
        for (std::int64_t j = 0; j < width; ++j) to[j] += from[j];
      else
        std::copy_n(from, width, to);
    }
}

}  // namespace heed::rnn_detail
