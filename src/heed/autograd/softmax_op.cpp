#include "heed/autograd/softmax_op.h"

#include "heed/autograd/tape.h"
#include "heed/kernels/softmax.h"

namespace heed {
namespace {

// mask == nullptr: unmasked. mask_numel must be a multiple of the row length that divides
// x's element count (checked here; shapes of tensor masks are checked by the caller).
Var softmax_op(const Var& x, const std::uint8_t* mask, std::int64_t mask_numel, bool log) {
  const char* name = log ? "log_softmax" : "softmax";
  Tensor xv = x.value().contiguous();
  HEED_CHECK(xv.ndim() >= 1, name, ": input must have at least one dimension");
  const std::int64_t cols = xv.dim(-1), rows = cols ? xv.numel() / cols : 0;
  std::int64_t mask_rows = 0;
  if (mask) {
    HEED_CHECK(
        cols > 0 && mask_numel % cols == 0 && mask_numel > 0 && rows % (mask_numel / cols) == 0,
        name, ": mask of ", mask_numel, " elements does not cover the trailing ",
        "dimensions of input ", xv.shape().str());
    mask_rows = mask_numel / cols;
  }
  Tensor y = Tensor::empty(xv.shape(), xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    if (log)
      kernels::log_softmax_rows<T>(xv.data<T>(), y.data<T>(), rows, cols, mask, mask_rows);
    else
      kernels::softmax_rows<T>(xv.data<T>(), y.data<T>(), rows, cols, mask, mask_rows);
  });
  // Both backwards need only the output: masked entries are 0 (or -inf) there.
  return record_op(y, {&x}, [x, rows, cols, log](Var& o) {
    if (!x.requires_grad()) return;
    dispatch(o.dtype(), [&]<typename T>() {
      const T* yv = o.value().data<T>();
      const T* dy = o.grad().data<T>();
      T* dx = x.grad_buffer().data<T>();
      if (log)
        kernels::log_softmax_rows_backward<T>(yv, dy, dx, rows, cols);
      else
        kernels::softmax_rows_backward<T>(yv, dy, dx, rows, cols);
    });
  });
}

std::vector<std::uint8_t> to_mask(const Var& x, const Tensor& mask, const char* name) {
  const Shape& xs = x.shape();
  const Shape& ms = mask.shape();
  bool trailing = ms.ndim() >= 1 && ms.ndim() <= xs.ndim();
  for (int i = 1; trailing && i <= ms.ndim(); ++i)
    trailing = ms[ms.ndim() - i] == xs[xs.ndim() - i];
  HEED_CHECK(trailing, name, ": mask ", ms.str(), " must match the trailing dimensions of ",
             xs.str());
  std::vector<double> v = mask.to_vector();
  std::vector<std::uint8_t> m(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) m[i] = v[i] != 0.0;
  return m;
}

}  // namespace

Var softmax(const Var& x) { return softmax_op(x, nullptr, 0, false); }
Var softmax(const Var& x, const std::vector<std::uint8_t>& mask) {
  return softmax_op(x, mask.empty() ? nullptr : mask.data(), static_cast<std::int64_t>(mask.size()),
                    false);
}
Var softmax(const Var& x, const Tensor& mask) { return softmax(x, to_mask(x, mask, "softmax")); }

Var log_softmax(const Var& x) { return softmax_op(x, nullptr, 0, true); }
Var log_softmax(const Var& x, const std::vector<std::uint8_t>& mask) {
  return softmax_op(x, mask.empty() ? nullptr : mask.data(), static_cast<std::int64_t>(mask.size()),
                    true);
}
Var log_softmax(const Var& x, const Tensor& mask) {
  return log_softmax(x, to_mask(x, mask, "log_softmax"));
}

}  // namespace heed
