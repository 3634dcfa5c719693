#include "heed/autograd/layer_norm_op.h"

#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/kernels/layer_norm.h"

namespace heed {

Var layer_norm(const Var& x, const Var& gamma, const Var& beta, double eps) {
  const Tensor xv = x.value().contiguous();
  HEED_CHECK(xv.ndim() >= 1 && xv.dim(xv.ndim() - 1) > 0, "layer_norm: x must have a non-empty "
             "last dimension, got ", xv.shape().str());
  HEED_CHECK(gamma.defined() == beta.defined(), "layer_norm: give both gamma and beta or neither");
  HEED_CHECK(eps > 0, "layer_norm: eps must be positive, got ", eps);
  const std::int64_t d = xv.dim(xv.ndim() - 1), rows = xv.numel() / d;
  if (gamma.defined())
    for (const Var* p : {&gamma, &beta})
      HEED_CHECK(p->value().ndim() == 1 && p->dim(0) == d && p->value().is_contiguous() &&
                     p->dtype() == xv.dtype(),
                 "layer_norm: gamma and beta must be (", d, ") like x's last dimension, got ",
                 p->value().shape().str());
  Tensor y = Tensor::empty(xv.shape(), xv.dtype());
  Tensor mean = Tensor::empty({rows}, xv.dtype()), rstd = Tensor::empty({rows}, xv.dtype());
  const bool affine = gamma.defined();
  dispatch(xv.dtype(), [&]<typename T>() {
    kernels::layer_norm_rows<T>(xv.data<T>(), affine ? gamma.value().data<T>() : nullptr,
                                affine ? beta.value().data<T>() : nullptr, y.data<T>(),
                                mean.data<T>(), rstd.data<T>(), rows, d, eps);
  });
  return record_op(y, {&x, &gamma, &beta}, [x, xv, gamma, beta, mean, rstd, rows, d](Var& o) {
    const bool affine = gamma.defined();
    dispatch(o.dtype(), [&]<typename T>() {
      kernels::layer_norm_rows_backward<T>(
          xv.data<T>(), affine ? gamma.value().data<T>() : nullptr, mean.data<T>(),
          rstd.data<T>(), o.grad().data<T>(),
          x.requires_grad() ? x.grad_buffer().data<T>() : nullptr,
          affine && gamma.requires_grad() ? gamma.grad_buffer().data<T>() : nullptr,
          affine && beta.requires_grad() ? beta.grad_buffer().data<T>() : nullptr, rows, d);
    });
  });
}

}  // namespace heed
