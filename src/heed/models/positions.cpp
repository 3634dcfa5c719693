#include "heed/models/positions.h"

#include <cmath>
#include <vector>

#include "heed/autograd/elementwise_op.h"
#include "heed/base/error.h"

namespace heed {

Tensor sinusoidal_positions(std::int64_t start, std::int64_t n, std::int64_t d, DType dtype) {
  Tensor p = Tensor::empty({n, d}, dtype);
  dispatch(dtype, [&]<typename T>() {
    T* out = p.data<T>();
    for (std::int64_t t = 0; t < n; ++t)
      for (std::int64_t c = 0; c < d; ++c) {
        const double angle = static_cast<double>(start + t) /
                             std::pow(10000.0, static_cast<double>(c - c % 2) / static_cast<double>(d));
        out[t * d + c] = static_cast<T>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
      }
  });
  return p;
}

Positions::Positions(const TransformerConfig& c, Rng& rng, DType dtype)
    : d_(c.d_model), max_(c.max_positions) {
  if (c.positions == PositionEncoding::learned)
    table_ = std::make_unique<Embedding>(c.max_positions, c.d_model, -1, rng, dtype);
}

Var Positions::add_to(const Var& x, std::int64_t start) const {
  const std::int64_t B = x.dim(0), n = x.dim(1);
  if (table_) {
    HEED_CHECK(start + n <= max_, "transformer: position ", start + n, " is past "
               "model.max_positions (", max_, "), the learned positions' table");
    std::vector<std::int32_t> ids;
    ids.reserve(static_cast<std::size_t>(B * n));
    for (std::int64_t b = 0; b < B; ++b)
      for (std::int64_t t = 0; t < n; ++t) ids.push_back(static_cast<std::int32_t>(start + t));
    return add(x, table_->forward(ids, {B, n}));
  }
  const Tensor rows = sinusoidal_positions(start, n, d_, x.dtype());
  Tensor p = Tensor::empty({B, n, d_}, x.dtype());
  for (std::int64_t b = 0; b < B; ++b) p.select(0, b).copy_from(rows);
  return add(x, Var(p));
}

}  // namespace heed
