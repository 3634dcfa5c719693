#include "heed/autograd/index.h"

#include <algorithm>
#include <vector>

#include "heed/autograd/tape.h"
#include "heed/kernels/concat.h"
#include "heed/kernels/elementwise.h"
#include "heed/kernels/parallel_chunks.h"

namespace heed {
namespace {

// The band [start, end) of dimension dim; drop_dim removes dim (a select, end = start + 1).
Var band(const Var& x, int dim, std::int64_t start, std::int64_t end, bool drop_dim,
         const char* op) {
  Tensor xv = x.value().contiguous();
  const int nd = xv.ndim();
  const int d = dim < 0 ? dim + nd : dim;
  HEED_CHECK(d >= 0 && d < nd, op, ": dimension ", dim, " out of range for ", xv.shape().str());
  HEED_CHECK(0 <= start && start <= end && end <= xv.dim(d), op, ": range [", start, ", ", end,
             ") out of bounds for dimension ", d, " of ", xv.shape().str());
  std::int64_t outer = 1, inner = 1;
  for (int i = 0; i < d; ++i) outer *= xv.dim(i);
  for (int i = d + 1; i < nd; ++i) inner *= xv.dim(i);
  const std::int64_t ld = xv.dim(d) * inner, off = start * inner, width = (end - start) * inner;
  Shape ys;
  for (int i = 0; i < nd; ++i)
    if (i != d || !drop_dim) ys.push_back(i == d ? end - start : xv.dim(i));
  Tensor y;
  if (outer == 1) {
    y = xv.slice(d, start, end).reshape(ys);  // contiguous already: a view
  } else {
    y = Tensor::empty(ys, xv.dtype());
    dispatch(xv.dtype(), [&]<typename T>() {
      kernels::copy_block<T>(xv.data<T>() + off, ld, y.data<T>(), width, outer, width);
    });
  }
  return record_op(y, {&x}, [x, off, ld, width, outer](Var& o) {
    if (!x.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      kernels::add_block<T>(o.grad().data<T>(), width, x.grad_buffer().data<T>() + off, ld, outer,
                            width);
    });
  });
}

}  // namespace

Var slice(const Var& x, int dim, std::int64_t start, std::int64_t end) {
  return band(x, dim, start, end, false, "slice");
}

Var select(const Var& x, int dim, std::int64_t index) {
  return band(x, dim, index, index + 1, true, "select");
}

Var select_time(const Var& x, std::int64_t t) { return select(x, 0, t); }

namespace {

// dy (R, F) = (or +=, when not fresh) rows idx of g: the gradient of rows placed by index.
template <typename T>
void gather_gradient_rows(const T* g, const std::vector<std::int64_t>& idx, std::int64_t F,
                          bool fresh, T* dy) {
  kernels::parallel_chunks(static_cast<std::int64_t>(idx.size()), F,
                           [&](std::int64_t i0, std::int64_t i1) {
                             for (std::int64_t i = i0; i < i1; ++i) {
                               const T* gi = g + idx[static_cast<std::size_t>(i)] * F;
                               if (fresh) std::copy_n(gi, F, dy + i * F);
                               else kernels::accumulate<T>(gi, dy + i * F, F);
                             }
                           });
}

}  // namespace

Var gather_rows(const Var& x, std::span<const std::int64_t> rows) {
  Tensor xv = x.value().contiguous();
  HEED_CHECK(xv.ndim() >= 1, "gather_rows: needs at least one dimension");
  const std::int64_t F = xv.dim(-1), N = F ? xv.numel() / F : 0;
  for (std::int64_t r : rows)
    HEED_CHECK(r >= 0 && r < N, "gather_rows: row ", r, " outside [0, ", N, ")");
  const auto R = static_cast<std::int64_t>(rows.size());
  Tensor y = Tensor::empty({R, F}, xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    const T* src = xv.data<T>();
    T* dst = y.data<T>();
    kernels::parallel_chunks(R, F, [&](std::int64_t i0, std::int64_t i1) {
      for (std::int64_t i = i0; i < i1; ++i) std::copy_n(src + rows[i] * F, F, dst + i * F);
    });
  });
  return record_op(y, {&x}, [x, idx = std::vector<std::int64_t>(rows.begin(), rows.end()),
                             F](Var& o) {
    if (!x.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      const T* g = o.grad().data<T>();
      T* dx = x.grad_buffer().data<T>();
      // A row may be picked twice: threads take column blocks, each summing in index order.
      const auto R = static_cast<std::int64_t>(idx.size());
      kernels::parallel_chunks(
          F, R,
          [&](std::int64_t j0, std::int64_t j1) {
            for (std::int64_t i = 0; i < R; ++i)
              kernels::accumulate<T>(g + i * F + j0, dx + idx[static_cast<std::size_t>(i)] * F + j0,
                                     j1 - j0);
          },
          16);
    });
  });
}

Var add_rows(const Var& x, std::span<const std::int64_t> rows, const Var& y) {
  const Tensor& xv0 = x.value();
  HEED_CHECK(xv0.ndim() >= 1, "add_rows: x needs at least one dimension");
  const std::int64_t F = xv0.dim(-1), N = F ? xv0.numel() / F : 0;
  const auto R = static_cast<std::int64_t>(rows.size());
  HEED_CHECK(y.value().ndim() == 2 && y.value().dim(0) == R && y.value().dim(1) == F &&
                 y.dtype() == x.dtype(),
             "add_rows: y must be (", R, ", ", F, ") like the rows of x, got ",
             y.value().shape().str());
  std::vector<char> seen(static_cast<std::size_t>(N), 0);
  for (std::int64_t r : rows) {
    HEED_CHECK(r >= 0 && r < N, "add_rows: row ", r, " outside [0, ", N, ")");
    HEED_CHECK(!seen[static_cast<std::size_t>(r)], "add_rows: row ", r, " given twice");
    seen[static_cast<std::size_t>(r)] = 1;
  }
  const Tensor xv = xv0.contiguous();
  Tensor out = Tensor::empty(xv.shape(), xv.dtype());
  const Tensor yv = y.value().contiguous();
  dispatch(out.dtype(), [&]<typename T>() {
    T* o = out.data<T>();
    const T* in = xv.data<T>();
    const T* src = yv.data<T>();
    // The copy of x, then the rows' sums (distinct rows: checked above), both split across
    // the threads (kernels/parallel_chunks.h).
    kernels::parallel_chunks(
        N * F, 1, [&](std::int64_t i0, std::int64_t i1) { std::copy(in + i0, in + i1, o + i0); },
        16);
    kernels::parallel_chunks(R, F, [&](std::int64_t i0, std::int64_t i1) {
      for (std::int64_t i = i0; i < i1; ++i)
        kernels::accumulate<T>(src + i * F, o + rows[i] * F, F);
    });
  });
  return record_op(out, {&x, &y}, [x, y, idx = std::vector<std::int64_t>(rows.begin(), rows.end()),
                                   F, N](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      const T* g = o.grad().data<T>();
      if (x.requires_grad()) {  // a copy when x has no gradient buffer yet
        bool fresh = false;
        T* dx = x.grad_buffer_unzeroed(fresh).data<T>();
        kernels::parallel_chunks(
            N * F, 1,
            [&](std::int64_t i0, std::int64_t i1) {
              if (fresh)
                std::copy(g + i0, g + i1, dx + i0);
              else
                kernels::accumulate<T>(g + i0, dx + i0, i1 - i0);
            },
            16);
      }
      if (y.requires_grad()) {  // a copy of the rows when y has no gradient buffer yet
        bool fresh = false;
        T* dy = y.grad_buffer_unzeroed(fresh).data<T>();
        gather_gradient_rows(g, idx, F, fresh, dy);
      }
    });
  });
}

Var scatter_rows(const Var& y, std::span<const std::int64_t> rows, const Shape& shape) {
  HEED_CHECK(shape.ndim() >= 1, "scatter_rows: the shape needs at least one dimension");
  const std::int64_t F = shape[shape.ndim() - 1], N = F ? shape.numel() / F : 0;
  const auto R = static_cast<std::int64_t>(rows.size());
  HEED_CHECK(y.value().ndim() == 2 && y.value().dim(0) == R && y.value().dim(1) == F,
             "scatter_rows: y must be (", R, ", ", F, ") like the rows of ", shape.str(), ", got ",
             y.value().shape().str());
  // where[r]: the row of y that lands on output row r, or -1 (a zero row).
  std::vector<std::int64_t> where(static_cast<std::size_t>(N), -1);
  for (std::int64_t i = 0; i < R; ++i) {
    const std::int64_t r = rows[static_cast<std::size_t>(i)];
    HEED_CHECK(r >= 0 && r < N, "scatter_rows: row ", r, " outside [0, ", N, ")");
    HEED_CHECK(where[static_cast<std::size_t>(r)] < 0, "scatter_rows: row ", r, " given twice");
    where[static_cast<std::size_t>(r)] = i;
  }
  Tensor out = Tensor::empty(shape, y.dtype());
  const Tensor yv = y.value().contiguous();
  dispatch(out.dtype(), [&]<typename T>() {
    T* o = out.data<T>();
    const T* src = yv.data<T>();
    kernels::parallel_chunks(N, F, [&](std::int64_t r0, std::int64_t r1) {
      for (std::int64_t r = r0; r < r1; ++r) {
        const std::int64_t i = where[static_cast<std::size_t>(r)];
        if (i >= 0) std::copy_n(src + i * F, F, o + r * F);
        else std::fill_n(o + r * F, F, T(0));
      }
    });
  });
  return record_op(out, {&y}, [y, idx = std::vector<std::int64_t>(rows.begin(), rows.end()),
                               F](Var& o) {
    if (!y.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      bool fresh = false;  // a copy of the rows when y has no gradient buffer yet
      T* dy = y.grad_buffer_unzeroed(fresh).data<T>();
      gather_gradient_rows(o.grad().data<T>(), idx, F, fresh, dy);
    });
  });
}

Var reshape(const Var& x, const Shape& shape) {
  Tensor xv = x.value().contiguous();
  Tensor y = xv.reshape(shape);
  const std::int64_t n = xv.numel();
  return record_op(y, {&x}, [x, n](Var& o) {
    if (!x.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      kernels::accumulate<T>(o.grad().data<T>(), x.grad_buffer().data<T>(), n);
    });
  });
}

Var transpose(const Var& x, int d0, int d1) {
  Tensor y = x.value().transpose(d0, d1).contiguous();
  return record_op(y, {&x}, [x, d0, d1](Var& o) {
    if (!x.requires_grad()) return;
    const Tensor g = o.grad().transpose(d0, d1).contiguous();
    dispatch(o.dtype(), [&]<typename T>() {
      kernels::accumulate<T>(g.data<T>(), x.grad_buffer().data<T>(), g.numel());
    });
  });
}

}  // namespace heed
