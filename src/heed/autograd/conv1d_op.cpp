#include "heed/autograd/conv1d_op.h"

#include "heed/autograd/tape.h"
#include "heed/kernels/conv1d.h"

namespace heed {

Var conv1d_same(const Var& x, const Var& weight) {
  const Tensor xv = x.value().contiguous(), wv = weight.value().contiguous();
  HEED_CHECK(xv.ndim() == 2 && wv.ndim() == 3 && wv.dim(1) == 1,
             "conv1d_same: input (B, m) and weight (k, 1, r) expected, got ", xv.shape().str(),
             " and ", wv.shape().str());
  HEED_CHECK(wv.dim(0) >= 1 && wv.dim(2) >= 1 && wv.dim(2) % 2 == 1,
             "conv1d_same: the filters' width must be odd (the output keeps the input's length), "
             "got weight ", wv.shape().str());
  HEED_CHECK(xv.dtype() == wv.dtype(), "conv1d_same: dtype mismatch");
  const kernels::Conv1dShape s{xv.dim(0), xv.dim(1), wv.dim(0), wv.dim(2)};
  Tensor y = Tensor::empty(Shape{s.B, s.m, s.k}, xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    kernels::conv1d_same_forward<T>(xv.data<T>(), wv.data<T>(), y.data<T>(), s);
  });
  return record_op(y, {&x, &weight}, [x, weight, xv, wv, s](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      kernels::conv1d_same_backward<T>(
          xv.data<T>(), wv.data<T>(), o.grad().data<T>(),
          x.requires_grad() ? x.grad_buffer().data<T>() : nullptr,
          weight.requires_grad() ? weight.grad_buffer().data<T>() : nullptr, s);
    });
  });
}

}  // namespace heed
