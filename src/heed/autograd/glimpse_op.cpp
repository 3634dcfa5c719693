#include "heed/autograd/glimpse_op.h"

#include <cmath>

#include "heed/autograd/tape.h"
#include "heed/kernels/glimpse.h"

namespace heed {

Var glimpse(const Var& images, const Tensor& locations, GlimpseOptions options) {
  const Tensor xv = images.value().contiguous();
  HEED_CHECK(xv.ndim() == 4, "glimpse: images must be 4-D (N, C, H, W), got ", xv.shape().str());
  check_shape(locations, Shape{xv.dim(0), 2}, "glimpse locations");
  HEED_CHECK(options.size >= 1 && options.size <= 4096 && options.patches >= 1 &&
                 options.patches <= 16 && (options.size << (options.patches - 1)) <= (1 << 16),
             "glimpse: size ", options.size, " must be from 1 to 4096, patches ",
             options.patches, " from 1 to 16, and the largest patch, size x 2^(patches - 1), ",
             "at most 65536 pixels wide");
  const Tensor loc = locations.to(xv.dtype()).contiguous();
  for (double l : loc.to_vector())
    HEED_CHECK(std::isfinite(l) && l >= -1 && l <= 1, "glimpse: location ", l,
               " outside [-1, 1]");
  const kernels::GlimpseShape s{xv.dim(0), xv.dim(1), xv.dim(2), xv.dim(3), options.size,
                                options.patches};
  Tensor y = Tensor::empty(Shape{s.N, s.out_size()}, xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    kernels::glimpse_forward<T>(xv.data<T>(), loc.data<T>(), y.data<T>(), s);
  });
  return record_op(y, {&images}, [images, loc, s](Var& o) {
    if (!images.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      kernels::glimpse_backward<T>(loc.data<T>(), o.grad().data<T>(),
                                   images.grad_buffer().data<T>(), s);
    });
  });
}

}  // namespace heed
