#include "heed/autograd/cross_entropy_op.h"

#include "heed/autograd/tape.h"
#include "heed/kernels/cross_entropy.h"

namespace heed {

CrossEntropyResult cross_entropy_with_count(const Var& logits,
                                            const std::vector<std::int32_t>& targets,
                                            std::int32_t ignore_index, double label_smoothing) {
  Tensor xv = logits.value().contiguous();
  HEED_CHECK(xv.ndim() >= 1 && xv.dim(-1) > 0, "cross_entropy: logits ", xv.shape().str(),
             " need a non-empty class dimension");
  HEED_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0,
             "cross_entropy: label_smoothing must be in [0, 1], got ", label_smoothing);
  const std::int64_t cols = xv.dim(-1), rows = xv.numel() / cols;
  HEED_CHECK(static_cast<std::int64_t>(targets.size()) == rows, "cross_entropy: ", targets.size(),
             " targets for ", rows, " rows of logits ", xv.shape().str());
  std::int64_t count = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int32_t t = targets[static_cast<std::size_t>(r)];
    if (t == ignore_index) continue;
    HEED_CHECK(t >= 0 && t < cols, "cross_entropy: target ", t, " at row ", r, " is outside [0, ",
               cols, ")");
    ++count;
  }
  Tensor lse = Tensor::empty(Shape{rows}, xv.dtype());
  std::vector<double> row_loss(static_cast<std::size_t>(rows));
  Tensor y = Tensor::empty(Shape{}, xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    kernels::cross_entropy_forward<T>(xv.data<T>(), rows, cols, targets.data(), ignore_index,
                                      label_smoothing, lse.data<T>(), row_loss.data());
    // Summed in row order, whatever the threads did: the loss repeats bit for bit.
    double total = 0;
    for (double l : row_loss) total += l;
    y.data<T>()[0] = static_cast<T>(count ? total / static_cast<double>(count) : 0.0);
  });
  if (!any_requires_grad({&logits})) return {Var(y), count};
  Var loss = record_op(
      y, {&logits},
      [logits, xv, lse, targets, ignore_index, label_smoothing, rows, cols, count](Var& o) {
        if (count == 0) return;
        dispatch(o.dtype(), [&]<typename T>() {
          const T scale = o.grad().data<T>()[0] / static_cast<T>(count);
          kernels::cross_entropy_backward<T>(xv.data<T>(), lse.data<T>(), rows, cols,
                                             targets.data(), ignore_index, label_smoothing, scale,
                                             logits.grad_buffer().data<T>());
        });
      });
  return {loss, count};
}

Var cross_entropy(const Var& logits, const std::vector<std::int32_t>& targets,
                  std::int32_t ignore_index, double label_smoothing) {
  return cross_entropy_with_count(logits, targets, ignore_index, label_smoothing).loss;
}

}  // namespace heed
