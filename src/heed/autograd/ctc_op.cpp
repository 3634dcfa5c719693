#include "heed/autograd/ctc_op.h"

#include <cmath>

#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/kernels/ctc.h"

namespace heed {

CtcResult ctc_loss(const Var& logits, const std::vector<std::int64_t>& frame_lengths,
                   const std::vector<std::vector<std::int32_t>>& targets, std::int32_t blank) {
  const Tensor x = logits.value().contiguous();
  HEED_CHECK(x.ndim() == 3 && x.dim(2) > 0, "ctc_loss: logits (B, T, V) expected, got ",
             x.shape().str());
  kernels::CtcShape s{x.dim(0), x.dim(1), x.dim(2), blank};
  HEED_CHECK(blank >= 0 && blank < s.symbols, "ctc_loss: blank ", blank, " is outside [0, ",
             s.symbols, ")");
  HEED_CHECK(static_cast<std::int64_t>(frame_lengths.size()) == s.batch &&
                 static_cast<std::int64_t>(targets.size()) == s.batch,
             "ctc_loss: ", frame_lengths.size(), " frame lengths and ", targets.size(),
             " targets for a batch of ", s.batch);
  std::vector<std::int32_t> flat;
  std::vector<std::int64_t> target_lengths;
  for (std::int64_t b = 0; b < s.batch; ++b) {
    const std::int64_t T = frame_lengths[static_cast<std::size_t>(b)];
    HEED_CHECK(T >= 0 && T <= s.frames, "ctc_loss: row ", b, " has ", T, " frames of ", s.frames);
    for (std::int32_t y : targets[static_cast<std::size_t>(b)]) {
      HEED_CHECK(y >= 0 && y < s.symbols && y != blank, "ctc_loss: row ", b, "'s target holds ",
                 y, ", not a symbol in [0, ", s.symbols, ") other than the blank ", blank);
      flat.push_back(y);
    }
    target_lengths.push_back(static_cast<std::int64_t>(targets[static_cast<std::size_t>(b)].size()));
  }
  const bool grad = any_requires_grad({&logits});
  std::vector<double> nll(static_cast<std::size_t>(s.batch));
  Tensor y = Tensor::empty(Shape{}, x.dtype());
  Tensor dx = grad ? Tensor::zeros(x.shape(), x.dtype()) : Tensor();
  std::int64_t infeasible = 0;
  dispatch(x.dtype(), [&]<typename T>() {
    infeasible = kernels::ctc_loss<T>(s, x.data<T>(), frame_lengths.data(), flat.data(),
                                      target_lengths.data(), nll.data(), T(1),
                                      grad ? dx.data<T>() : nullptr);
    double total = 0;  // in row order, whatever the threads did; infeasible rows count 0
    for (double l : nll)
      if (std::isfinite(l)) total += l;
    y.data<T>()[0] = static_cast<T>(total);
  });
  if (!grad) return {Var(y), infeasible};
  // The forward kept d loss / d logits; the backward scales it by the loss's gradient.
  Var loss = record_op(y, {&logits}, [logits, dx](Var& o) {
    dispatch(o.dtype(), [&]<typename T>() {
      const T g = o.grad().data<T>()[0];
      const T* d = dx.data<T>();
      T* out = logits.grad_buffer().data<T>();
      const std::int64_t n = dx.numel();
      for (std::int64_t i = 0; i < n; ++i) out[i] += g * d[i];
    });
  });
  return {loss, infeasible};
}

}  // namespace heed
