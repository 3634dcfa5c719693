#include "heed/autograd/concat_op.h"

#include "heed/autograd/tape.h"
#include "heed/kernels/concat.h"

namespace heed {
namespace {

int normalise_dim(int dim, int ndim, const char* op) {
  const int d = dim < 0 ? dim + ndim : dim;
  HEED_CHECK(d >= 0 && d < ndim, op, ": dimension ", dim, " out of range for ", ndim, "-d inputs");
  return d;
}

// The output is (outer x sum of widths); part k fills the column band of width widths[k].
Var join(const std::vector<Var>& parts, const std::vector<Tensor>& vals, std::int64_t outer,
         const std::vector<std::int64_t>& widths, const Shape& out_shape) {
  std::int64_t total = 0;
  for (auto w : widths) total += w;
  Tensor y = Tensor::empty(out_shape, vals.front().dtype());
  dispatch(y.dtype(), [&]<typename T>() {
    std::int64_t off = 0;
    for (std::size_t k = 0; k < vals.size(); ++k) {
      kernels::copy_block<T>(vals[k].data<T>(), widths[k], y.data<T>() + off, total, outer,
                             widths[k]);
      off += widths[k];
    }
  });
  bool rg = false;
  for (const Var& p : parts) rg = rg || any_requires_grad({&p});
  Var out(y, rg);
  if (rg)
    Tape::current().record(
        [out, parts, outer, widths, total]() {
          if (!out.has_grad()) return;
          dispatch(out.dtype(), [&]<typename T>() {
            const T* dy = out.grad().data<T>();
            std::int64_t off = 0;
            for (std::size_t k = 0; k < parts.size(); ++k) {
              if (parts[k].requires_grad())
                kernels::add_block<T>(dy + off, total, parts[k].grad_buffer().data<T>(), widths[k],
                                      outer, widths[k]);
              off += widths[k];
            }
          });
        },
        parts);
  return out;
}

std::vector<Tensor> contiguous_values(const std::vector<Var>& parts, const char* op) {
  HEED_CHECK(!parts.empty(), op, ": no inputs");
  std::vector<Tensor> vals;
  vals.reserve(parts.size());
  for (const Var& p : parts) {
    vals.push_back(p.value().contiguous());
    HEED_CHECK(vals.back().dtype() == vals.front().dtype(), op, ": dtypes differ");
  }
  return vals;
}

}  // namespace

Var concat(const std::vector<Var>& parts, int dim) {
  std::vector<Tensor> vals = contiguous_values(parts, "concat");
  const Shape& first = vals.front().shape();
  const int nd = first.ndim();
  const int d = normalise_dim(dim, nd, "concat");
  std::int64_t outer = 1, inner = 1;
  for (int i = 0; i < d; ++i) outer *= first[i];
  for (int i = d + 1; i < nd; ++i) inner *= first[i];
  Shape out_shape = first;
  out_shape[d] = 0;
  std::vector<std::int64_t> widths;
  for (const Tensor& v : vals) {
    bool ok = v.ndim() == nd;
    for (int i = 0; ok && i < nd; ++i) ok = i == d || v.dim(i) == first[i];
    HEED_CHECK(ok, "concat: part ", v.shape().str(), " does not match ", first.str(),
               " outside dimension ", d);
    out_shape[d] += v.dim(d);
    widths.push_back(v.dim(d) * inner);
  }
  return join(parts, vals, outer, widths, out_shape);
}

Var stack(const std::vector<Var>& parts, int dim) {
  std::vector<Tensor> vals = contiguous_values(parts, "stack");
  const Shape& first = vals.front().shape();
  const int nd = first.ndim();
  const int d = normalise_dim(dim, nd + 1, "stack");
  for (const Tensor& v : vals)
    HEED_CHECK(v.shape() == first, "stack: part ", v.shape().str(), " differs from ", first.str());
  std::int64_t outer = 1, inner = 1;
  for (int i = 0; i < d; ++i) outer *= first[i];
  for (int i = d; i < nd; ++i) inner *= first[i];
  Shape out_shape;
  for (int i = 0; i <= nd; ++i) {
    if (i == d) out_shape.push_back(static_cast<std::int64_t>(vals.size()));
    if (i < nd) out_shape.push_back(first[i]);
  }
  return join(parts, vals, outer, std::vector<std::int64_t>(vals.size(), inner), out_shape);
}

std::vector<Var> split(const Var& x, const std::vector<std::int64_t>& sizes, int dim) {
  Tensor xv = x.value().contiguous();
  const int nd = xv.ndim();
  const int d = normalise_dim(dim, nd, "split");
  std::int64_t total = 0;
  for (auto s : sizes) {
    HEED_CHECK(s >= 0, "split: negative size ", s);
    total += s;
  }
  HEED_CHECK(total == xv.dim(d), "split: sizes sum to ", total, " but dimension ", d, " of ",
             xv.shape().str(), " is ", xv.dim(d));
  std::int64_t outer = 1, inner = 1;
  for (int i = 0; i < d; ++i) outer *= xv.dim(i);
  for (int i = d + 1; i < nd; ++i) inner *= xv.dim(i);
  const std::int64_t ld = xv.dim(d) * inner;
  std::vector<Var> out;
  std::int64_t off = 0;
  for (auto s : sizes) {
    Shape ps = xv.shape();
    ps[d] = s;
    const std::int64_t width = s * inner;
    Tensor y = Tensor::empty(ps, xv.dtype());
    dispatch(xv.dtype(), [&]<typename T>() {
      kernels::copy_block<T>(xv.data<T>() + off, ld, y.data<T>(), width, outer, width);
    });
    out.push_back(record_op(y, {&x}, [x, off, ld, width, outer](Var& o) {
      if (!x.requires_grad()) return;
      dispatch(o.dtype(), [&]<typename T>() {
        kernels::add_block<T>(o.grad().data<T>(), width, x.grad_buffer().data<T>() + off, ld, outer,
                              width);
      });
    }));
    off += width;
  }
  return out;
}

}  // namespace heed
