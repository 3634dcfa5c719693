#include "heed/models/position_cache.h"

#include <algorithm>
#include <cstring>

#include "heed/base/error.h"

namespace heed {

PositionCache::PositionCache(std::int64_t hypotheses, std::int64_t width, DType dtype)
    : store_(std::make_shared<Store>()), B_(hypotheses), width_(width) {
  HEED_CHECK(hypotheses >= 0 && width > 0, "PositionCache: ", hypotheses, " hypotheses of width ",
             width);
  // Room for 16 positions of every hypothesis before the first growth.
  store_->rows = Tensor::empty({std::max<std::int64_t>(16 * hypotheses, 1), width}, dtype);
}

void PositionCache::append(const Tensor& x) {
  HEED_CHECK(defined(), "PositionCache: append to an undefined cache");
  HEED_CHECK(x.ndim() == 3 && x.dim(0) == B_ && x.dim(2) == width_ &&
                 x.dtype() == store_->rows.dtype(),
             "PositionCache: append ", x.shape().str(), " to a cache of ", B_, " hypotheses of width ",
             width_);
  const std::int64_t n = x.dim(1), add = B_ * n;
  Store& s = *store_;
  if (s.used + add > s.rows.dim(0)) {
    // Grow to twice the size, and at least to room for 16 more appends like this one: beam
    // search appends its beam's hypotheses to a store sized for the batch it started from.
    // The rows written so far move once a growth.
    Tensor bigger = Tensor::empty({std::max(2 * s.rows.dim(0), s.used + 16 * add), width_},
                                  s.rows.dtype());
    if (s.used > 0) bigger.slice(0, 0, s.used).copy_from(s.rows.slice(0, 0, s.used));
    s.rows = bigger;
  }
  // Hypothesis b's position t + i goes to row used + b n + i.
  Tensor to = s.rows.slice(0, s.used, s.used + add).reshape({B_, n, width_});
  if (x.stride(2) == 1) {
    const std::size_t esize = dtype_size(x.dtype()), bytes = static_cast<std::size_t>(width_) * esize;
    const auto* from = static_cast<const std::byte*>(x.raw());
    auto* dst = static_cast<std::byte*>(to.raw());
    for (std::int64_t b = 0; b < B_; ++b)
      for (std::int64_t i = 0; i < n; ++i)
        std::memcpy(dst + static_cast<std::size_t>(b * n + i) * bytes,
                    from + static_cast<std::size_t>(b * x.stride(0) + i * x.stride(1)) * esize,
                    bytes);
  } else {
    to.copy_from(x);
  }
  std::vector<std::int64_t> index(static_cast<std::size_t>(B_ * (t_ + n)));
  for (std::int64_t b = 0; b < B_; ++b) {
    const auto row = index.begin() + b * (t_ + n);
    std::copy_n(index_.begin() + b * t_, t_, row);
    for (std::int64_t i = 0; i < n; ++i) row[t_ + i] = s.used + b * n + i;
  }
  index_ = std::move(index);
  s.used += add;
  t_ += n;
}

PositionCache PositionCache::reorder(std::span<const std::int64_t> rows) const {
  PositionCache out;
  out.store_ = store_;
  out.B_ = static_cast<std::int64_t>(rows.size());
  out.t_ = t_;
  out.width_ = width_;
  out.index_.resize(static_cast<std::size_t>(out.B_ * t_));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    HEED_CHECK(rows[i] >= 0 && rows[i] < B_, "PositionCache: hypothesis ", rows[i], " of ", B_);
    std::copy_n(index_.begin() + rows[i] * t_, t_,
                out.index_.begin() + static_cast<std::int64_t>(i) * t_);
  }
  return out;
}

ListedKeys PositionCache::listed(std::int64_t key_column, std::int64_t value_column) const {
  HEED_CHECK(defined() && t_ > 0, "PositionCache: no positions to attend to");
  return {store_->rows, index_.data(), t_, key_column, value_column};
}

Tensor PositionCache::position(std::int64_t b, std::int64_t j) const {
  HEED_CHECK(b >= 0 && b < B_ && j >= 0 && j < t_, "PositionCache: position ", j,
             " of hypothesis ", b, " outside ", B_, " x ", t_);
  return store_->rows.select(0, index_[static_cast<std::size_t>(b * t_ + j)]).clone();
}

}  // namespace heed
