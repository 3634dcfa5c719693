#include "heed/autograd/pool2d_op.h"

#include <memory>
#include <vector>

#include "heed/autograd/tape.h"
#include "heed/kernels/pool2d.h"

namespace heed {
namespace {

kernels::Pool2dShape pool_shape(const Tensor& x, std::int64_t kernel, std::int64_t stride,
                                const char* name) {
  HEED_CHECK(x.ndim() == 4, name, ": input must be 4-D (N, C, H, W), got ", x.shape().str());
  HEED_CHECK(kernel >= 1 && stride >= 1 && kernel <= x.dim(2) && kernel <= x.dim(3), name,
             ": kernel ", kernel, " and stride ", stride, " must be at least 1, the kernel no ",
             "larger than the input ", x.shape().str());
  return {x.dim(0) * x.dim(1), x.dim(2), x.dim(3), kernel, stride};
}

Shape out_shape(const Tensor& x, const kernels::Pool2dShape& s) {
  return Shape{x.dim(0), x.dim(1), s.OH(), s.OW()};
}

}  // namespace

Var max_pool2d(const Var& x, std::int64_t kernel, std::int64_t stride) {
  const Tensor xv = x.value().contiguous();
  const kernels::Pool2dShape s = pool_shape(xv, kernel, stride, "max_pool2d");
  Tensor y = Tensor::empty(out_shape(xv, s), xv.dtype());
  auto argmax = std::make_shared<std::vector<std::int32_t>>(static_cast<std::size_t>(y.numel()));
  dispatch(xv.dtype(), [&]<typename T>() {
    kernels::max_pool2d_forward<T>(xv.data<T>(), y.data<T>(), argmax->data(), s);
  });
  return record_op(y, {&x}, [x, s, argmax](Var& o) {
    if (!x.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      kernels::max_pool2d_backward<T>(o.grad().data<T>(), argmax->data(),
                                      x.grad_buffer().data<T>(), s);
    });
  });
}

Var avg_pool2d(const Var& x, std::int64_t kernel, std::int64_t stride) {
  const Tensor xv = x.value().contiguous();
  const kernels::Pool2dShape s = pool_shape(xv, kernel, stride, "avg_pool2d");
  Tensor y = Tensor::empty(out_shape(xv, s), xv.dtype());
  dispatch(xv.dtype(),
           [&]<typename T>() { kernels::avg_pool2d_forward<T>(xv.data<T>(), y.data<T>(), s); });
  return record_op(y, {&x}, [x, s](Var& o) {
    if (!x.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      kernels::avg_pool2d_backward<T>(o.grad().data<T>(), x.grad_buffer().data<T>(), s);
    });
  });
}

}  // namespace heed
