#pragma once
// Joining and cutting along a dimension: concat, split, stack. Each copies into a
// contiguous output (one band copy per part); the backward adds the matching band of the
// gradient back. Negative dims count from the end.
#include <cstdint>
#include <vector>

#include "heed/autograd/var.h"

namespace heed {

// Parts agree on every dimension except dim, e.g. [h_fwd; h_bwd] = concat({f, b}, -1).
Var concat(const std::vector<Var>& parts, int dim);

// The inverse of concat: pieces of the given sizes along dim (sizes sum to x.dim(dim)).
std::vector<Var> split(const Var& x, const std::vector<std::int64_t>& sizes, int dim);

// Same-shape parts joined along a new dimension dim (0 <= dim <= ndim; -1 = last), e.g.
// the decoder's per-step outputs stacked into (T, B, H) or (B, T, H).
Var stack(const std::vector<Var>& parts, int dim);

}  // namespace heed
