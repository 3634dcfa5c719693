#include "heed/autograd/reduce_op.h"

#include "heed/autograd/tape.h"
#include "heed/kernels/elementwise.h"
#include "heed/kernels/reduce.h"

namespace heed {
namespace {

Var reduce_all(const Var& x, bool average) {
  Tensor xv = x.value().contiguous();
  const std::int64_t n = xv.numel();
  Tensor y = Tensor::empty(Shape{}, xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    double s = kernels::sum_all<T>(xv.data<T>(), n);
    y.data<T>()[0] = static_cast<T>(average && n ? s / static_cast<double>(n) : s);
  });
  return record_op(y, {&x}, [x, n, average](Var& o) {
    if (!x.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      T g = o.grad().data<T>()[0];
      if (average && n) g /= static_cast<T>(n);
      T* dx = x.grad_buffer().data<T>();
      for (std::int64_t i = 0; i < n; ++i) dx[i] += g;
    });
  });
}

Var reduce_dim(const Var& x, int dim, bool keepdim, bool average) {
  Tensor xv = x.value().contiguous();
  const int nd = xv.ndim();
  if (dim < 0) dim += nd;
  HEED_CHECK(dim >= 0 && dim < nd, average ? "mean" : "sum", ": dimension out of range for ",
             xv.shape().str());
  std::int64_t outer = 1, inner = 1;
  for (int i = 0; i < dim; ++i) outer *= xv.dim(i);
  for (int i = dim + 1; i < nd; ++i) inner *= xv.dim(i);
  const std::int64_t n = xv.dim(dim);
  Shape ys;
  for (int i = 0; i < nd; ++i) {
    if (i != dim)
      ys.push_back(xv.dim(i));
    else if (keepdim)
      ys.push_back(1);
  }
  Tensor y = Tensor::empty(ys, xv.dtype());
  const double factor = average && n ? 1.0 / static_cast<double>(n) : 1.0;
  dispatch(xv.dtype(), [&]<typename T>() {
    kernels::sum_middle<T>(xv.data<T>(), y.data<T>(), outer, n, inner);
    if (factor != 1.0)
      kernels::scale<T>(y.data<T>(), static_cast<T>(factor), y.data<T>(), outer * inner);
  });
  return record_op(y, {&x}, [x, outer, n, inner, factor](Var& o) {
    if (!x.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      const T* dy = o.grad().data<T>();
      T* dx = x.grad_buffer().data<T>();
      if (factor == 1.0) {
        kernels::broadcast_middle_add<T>(dy, dx, outer, n, inner);
        return;
      }
      const T f = static_cast<T>(factor);
      for (std::int64_t i = 0; i < outer; ++i)
        for (std::int64_t k = 0; k < n; ++k)
          kernels::accumulate_scaled<T>(dy + i * inner, f, dx + (i * n + k) * inner, inner);
    });
  });
}

}  // namespace

Var sum(const Var& x) { return reduce_all(x, false); }
Var mean(const Var& x) { return reduce_all(x, true); }
Var sum(const Var& x, int dim, bool keepdim) { return reduce_dim(x, dim, keepdim, false); }
Var mean(const Var& x, int dim, bool keepdim) { return reduce_dim(x, dim, keepdim, true); }

}  // namespace heed
