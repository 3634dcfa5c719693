#include "heed/autograd/conv2d_op.h"

#include "heed/autograd/tape.h"
#include "heed/kernels/conv2d.h"

namespace heed {

Var conv2d(const Var& x, const Var& weight, const Var& bias, Conv2dOptions options) {
  const Tensor xv = x.value().contiguous(), wv = weight.value().contiguous();
  HEED_CHECK(xv.ndim() == 4 && wv.ndim() == 4, "conv2d: input (N, C, H, W) and weight ",
             "(O, C, KH, KW) must be 4-D, got ", xv.shape().str(), " and ", wv.shape().str());
  HEED_CHECK(xv.dim(1) == wv.dim(1), "conv2d: input ", xv.shape().str(), " has ", xv.dim(1),
             " channels, weight ", wv.shape().str(), " expects ", wv.dim(1));
  HEED_CHECK(xv.dtype() == wv.dtype(), "conv2d: dtype mismatch");
  HEED_CHECK(options.stride >= 1 && options.padding >= 0, "conv2d: stride ", options.stride,
             " must be at least 1 and padding ", options.padding, " at least 0");
  kernels::Conv2dShape s{xv.dim(0), xv.dim(1), xv.dim(2), xv.dim(3), wv.dim(0), wv.dim(2),
                         wv.dim(3), options.stride, options.padding};
  HEED_CHECK(s.KH >= 1 && s.KW >= 1 && s.H + 2 * s.pad >= s.KH && s.W + 2 * s.pad >= s.KW,
             "conv2d: kernel ", s.KH, "x", s.KW, " does not fit the padded input ", xv.shape().str(),
             " (padding ", s.pad, ")");
  if (bias.defined()) check_shape(bias.value(), Shape{s.O}, "conv2d bias");
  Tensor y = Tensor::empty(Shape{s.N, s.O, s.OH(), s.OW()}, xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    Tensor col = Tensor::empty(Shape{s.workspace()}, xv.dtype());
    kernels::conv2d_forward<T>(xv.data<T>(), wv.data<T>(),
                               bias.defined() ? bias.value().contiguous().data<T>() : nullptr,
                               y.data<T>(), s, col.data<T>());
  });
  return record_op(y, {&x, &weight, &bias}, [x, weight, bias, xv, wv, s](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      Tensor col = Tensor::empty(Shape{s.workspace()}, o.dtype());
      kernels::conv2d_backward<T>(
          xv.data<T>(), wv.data<T>(), o.grad().data<T>(),
          x.requires_grad() ? x.grad_buffer().data<T>() : nullptr,
          weight.requires_grad() ? weight.grad_buffer().data<T>() : nullptr,
          bias.requires_grad() ? bias.grad_buffer().data<T>() : nullptr, s, col.data<T>());
    });
  });
}

}  // namespace heed
