#include "heed/autograd/dropout_op.h"

#include "heed/autograd/tape.h"
#include "heed/kernels/dropout.h"
#include "heed/kernels/elementwise.h"
#include "heed/kernels/parallel_chunks.h"

namespace heed {

Var dropout(const Var& x, double p, Rng& rng, bool training) {
  HEED_CHECK(p >= 0.0 && p <= 1.0, "dropout: probability must be in [0, 1], got ", p);
  if (!training || p == 0.0) return x;
  Tensor xv = x.value().contiguous();
  const std::int64_t n = xv.numel();
  // The mask holds 0 or 1/(1-p) per element, so forward and backward are one multiply, each
  // split across the threads as the mask is.
  Tensor mask = Tensor::empty(xv.shape(), xv.dtype());
  Tensor y = Tensor::empty(xv.shape(), xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    kernels::dropout_mask<T>(mask.data<T>(), n, p, rng);
    const T *in = xv.data<T>(), *m = mask.data<T>();
    T* out = y.data<T>();
    kernels::parallel_chunks(
        n, 1,
        [&](std::int64_t i0, std::int64_t i1) {
          kernels::mul<T>(in + i0, m + i0, out + i0, i1 - i0);
        },
        16);
  });
  return record_op(y, {&x}, [x, mask, n](Var& o) {
    if (!x.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      const T *dy = o.grad().data<T>(), *m = mask.data<T>();
      bool fresh = false;  // a new gradient buffer is written, not zeroed and added to
      T* dx = x.grad_buffer_unzeroed(fresh).data<T>();
      kernels::parallel_chunks(
          n, 1,
          [&](std::int64_t i0, std::int64_t i1) {
            if (fresh)
              kernels::mul<T>(dy + i0, m + i0, dx + i0, i1 - i0);
            else
              kernels::accumulate_mul<T>(dy + i0, m + i0, dx + i0, i1 - i0);
          },
          16);
    });
  });
}

}  // namespace heed
