#include "heed/autograd/copy_loss_op.h"

#include "heed/autograd/tape.h"
#include "heed/kernels/copy_mixture.h"
#include "heed/kernels/softmax.h"

namespace heed {
namespace {

// The shapes every call shares: logits (R, V), gate (R), alpha (R, m), copy_ids R * m ids,
// each in [0, V + extended).
void check_copy_inputs(const Tensor& logits, const Tensor& gate, const Tensor& alpha,
                       std::span<const std::int32_t> copy_ids, std::int64_t extended,
                       const char* what) {
  HEED_CHECK(logits.ndim() == 2 && logits.dim(1) > 0, what, ": logits ", logits.shape().str(),
             " must be (R, V)");
  const std::int64_t R = logits.dim(0), V = logits.dim(1);
  HEED_CHECK(gate.ndim() == 1 && gate.dim(0) == R, what, ": gate ", gate.shape().str(),
             " must be (", R, ") for logits ", logits.shape().str());
  HEED_CHECK(alpha.ndim() == 2 && alpha.dim(0) == R, what, ": alpha ", alpha.shape().str(),
             " must be (", R, ", m) for logits ", logits.shape().str());
  HEED_CHECK(gate.dtype() == logits.dtype() && alpha.dtype() == logits.dtype(), what,
             ": logits, gate and alpha must share a dtype");
  HEED_CHECK(extended >= 0, what, ": ", extended, " extended words");
  HEED_CHECK(static_cast<std::int64_t>(copy_ids.size()) == R * alpha.dim(1), what, ": ",
             copy_ids.size(), " copy ids for alpha ", alpha.shape().str());
  for (std::size_t i = 0; i < copy_ids.size(); ++i)
    HEED_CHECK(copy_ids[i] >= 0 && copy_ids[i] < V + extended, what, ": copy id ", copy_ids[i],
               " at ", i, " is outside [0, ", V + extended, ")");
}

}  // namespace

CrossEntropyResult copy_loss_with_count(const Var& logits, const Var& gate, const Var& alpha,
                                        std::span<const std::int32_t> copy_ids,
                                        const std::vector<std::int32_t>& targets,
                                        std::int64_t extended, std::int32_t ignore_index) {
  const Tensor xv = logits.value().contiguous(), gv = gate.value().contiguous(),
               av = alpha.value().contiguous();
  check_copy_inputs(xv, gv, av, copy_ids, extended, "copy_loss");
  const std::int64_t R = xv.dim(0), V = xv.dim(1), m = av.dim(1);
  HEED_CHECK(static_cast<std::int64_t>(targets.size()) == R, "copy_loss: ", targets.size(),
             " targets for ", R, " rows of logits");
  std::int64_t count = 0;
  for (std::int64_t r = 0; r < R; ++r) {
    const std::int32_t t = targets[static_cast<std::size_t>(r)];
    if (t == ignore_index) continue;
    HEED_CHECK(t >= 0 && t < V + extended, "copy_loss: target ", t, " at row ", r,
               " is outside [0, ", V + extended, ")");
    ++count;
  }
  const std::vector<std::int32_t> ids(copy_ids.begin(), copy_ids.end());
  Tensor lse = Tensor::empty(Shape{R}, xv.dtype());
  Tensor w_vocab = Tensor::empty(Shape{R}, xv.dtype());
  Tensor mass = Tensor::empty(Shape{R}, xv.dtype());
  std::vector<double> row_loss(static_cast<std::size_t>(R));
  Tensor y = Tensor::empty(Shape{}, xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    kernels::log_sum_exp_rows<T>(xv.data<T>(), R, V, lse.data<T>());
    kernels::copy_mixture_loss_forward<T>(xv.data<T>(), lse.data<T>(), R, V, gv.data<T>(),
                                          av.data<T>(), m, ids.data(), targets.data(),
                                          ignore_index, w_vocab.data<T>(), mass.data<T>(),
                                          row_loss.data());
    double total = 0;  // in row order: the loss repeats bit for bit
    for (double l : row_loss) total += l;
    y.data<T>()[0] = static_cast<T>(count ? total / static_cast<double>(count) : 0.0);
  });
  if (!any_requires_grad({&logits, &gate, &alpha})) return {Var(y), count};
  Var loss = record_op(
      y, {&logits, &gate, &alpha},
      [logits, gate, alpha, xv, gv, lse, w_vocab, mass, ids, targets, ignore_index, R, V, m,
       count](Var& o) {
        if (count == 0) return;
        dispatch(o.dtype(), [&]<typename T>() {
          const T scale = o.grad().data<T>()[0] / static_cast<T>(count);
          kernels::copy_mixture_loss_backward<T>(
              xv.data<T>(), lse.data<T>(), R, V, gv.data<T>(), m, ids.data(), targets.data(),
              ignore_index, w_vocab.data<T>(), mass.data<T>(), scale,
              logits.requires_grad() ? logits.grad_buffer().data<T>() : nullptr,
              gate.requires_grad() ? gate.grad_buffer().data<T>() : nullptr,
              alpha.requires_grad() ? alpha.grad_buffer().data<T>() : nullptr);
        });
      });
  return {loss, count};
}

Tensor copy_log_probs(const Tensor& logits, const Tensor& gate, const Tensor& alpha,
                      std::span<const std::int32_t> copy_ids, std::int64_t extended) {
  const Tensor xv = logits.contiguous(), gv = gate.contiguous(), av = alpha.contiguous();
  check_copy_inputs(xv, gv, av, copy_ids, extended, "copy_log_probs");
  const std::int64_t R = xv.dim(0), V = xv.dim(1);
  Tensor out = Tensor::empty(Shape{R, V + extended}, xv.dtype());
  dispatch(xv.dtype(), [&]<typename T>() {
    kernels::copy_mixture_log_probs<T>(xv.data<T>(), R, V, gv.data<T>(), av.data<T>(),
                                       av.dim(1), copy_ids.data(), extended, out.data<T>());
  });
  return out;
}

}  // namespace heed
