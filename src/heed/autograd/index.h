#pragma once
// Indexing on the tape: picking a slice or one index along a dimension, and reshaping.
// Along dimension 0 of a contiguous input the output is a view (no copy); otherwise it is
// copied into a contiguous tensor. The backward adds into the matching part of the input's
// gradient.
#include <cstdint>
#include <span>

#include "heed/autograd/var.h"

namespace heed {

// x[start:end] along dim (the dimension stays, with size end - start).
Var slice(const Var& x, int dim, std::int64_t start, std::int64_t end);
// x[index] along dim (the dimension is dropped).
Var select(const Var& x, int dim, std::int64_t index);
// Time step t of a time-major (T, ...) tensor: select(x, 0, t), a view.
Var select_time(const Var& x, std::int64_t t);
// Rows `rows` of x seen as (N, F) (every dimension but the last is a row): (rows.size(), F),
// copied; the backward adds each row's gradient back (a row may be picked more than once).
Var gather_rows(const Var& x, std::span<const std::int64_t> rows);
// gather_rows' inverse as a sum: x (any shape, seen as (N, F)) with row i of y (rows.size(),
// F) added to its row rows[i]; x's shape, copied. The rows must be distinct. A residual
// connection around work done on some rows only (the Transformer's real positions).
Var add_rows(const Var& x, std::span<const std::int64_t> rows, const Var& y);
// gather_rows' inverse into zeros: (N, F) (N = rows of `shape`, its last dimension F) with
// row rows[i] = row i of y (rows.size(), F) and 0 elsewhere, in `shape`; one pass over the
// output, no zeroed copy first. The rows must be distinct. Work done on the real positions
// only, spread back over a padded batch (the Transformer's projections).
Var scatter_rows(const Var& y, std::span<const std::int64_t> rows, const Shape& shape);
// The same elements in a new shape (one -1 is inferred); a view.
Var reshape(const Var& x, const Shape& shape);
// x with dimensions d0 and d1 swapped, copied contiguous (torch.transpose(...).contiguous()).
Var transpose(const Var& x, int d0, int d1);

}  // namespace heed
