#include "heed/autograd/dropout_op.h"

#include "heed/autograd/tape.h"
#include "heed/kernels/dropout.h"
#include "heed/kernels/elementwise.h"

namespace heed {

Var dropout(const Var& x, double p, Rng& rng, bool training) {
  HEED_CHECK(p >= 0.0 && p <= 1.0, "dropout: probability must be in [0, 1], got ", p);
  if (!training || p == 0.0) return x;
  Tensor xv = x.value().contiguous();
  const std::int64_t n = xv.numel();
  // The mask holds 0 or 1/(1-p) per element, so forward and backward are one multiply.
  Tensor mask = Tensor::empty(xv.shape(), xv.dtype());
  Tensor y = Tensor::empty(xv.shape(), xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    kernels::dropout_mask<T>(mask.data<T>(), n, p, rng);
    kernels::mul<T>(xv.data<T>(), mask.data<T>(), y.data<T>(), n);
  });
  return record_op(y, {&x}, [x, mask, n](Var& o) {
    if (!x.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      kernels::accumulate_mul<T>(o.grad().data<T>(), mask.data<T>(), x.grad_buffer().data<T>(), n);
    });
  });
}

}  // namespace heed
