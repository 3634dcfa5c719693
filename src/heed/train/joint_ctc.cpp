#include "heed/train/joint_ctc.h"

#include "heed/autograd/ctc_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/base/error.h"
#include "heed/models/token_batch.h"

namespace heed {

Var joint_ctc_loss(const Var& ce, const Var& ctc_logits,
                   const std::vector<std::int64_t>& annotation_lengths,
                   const std::vector<std::int32_t>& tgt_out, std::int64_t n, double tokens,
                   double lambda) {
  HEED_CHECK(ctc_logits.defined(), "model.ctc_weight is set but the model's encoder computed "
             "no CTC logits (only las has a CTC head)");
  HEED_CHECK(n > 0 && tgt_out.size() % static_cast<std::size_t>(n) == 0 && tokens > 0,
             "joint_ctc_loss: ", tgt_out.size(), " targets in rows of ", n, ", ", tokens, " tokens");
  std::vector<std::vector<std::int32_t>> targets(tgt_out.size() / static_cast<std::size_t>(n));
  for (std::size_t b = 0; b < targets.size(); ++b)
    for (std::size_t t = 0; t < static_cast<std::size_t>(n); ++t) {
      const std::int32_t y = tgt_out[b * static_cast<std::size_t>(n) + t];
      if (y != kPad && y != kEos) targets[b].push_back(y);
    }
  const CtcResult ctc = ctc_loss(ctc_logits, annotation_lengths, targets, kPad);
  return add(scale(ce, 1.0 - lambda), scale(ctc.loss, lambda / tokens));
}

}  // namespace heed
