#pragma once
// The CTC loss (kernels/ctc.h) as an op: PyTorch's F.ctc_loss(log_softmax(logits), ...,
// reduction="sum", zero_infinity=True) with the logits (B, T, V) batch-first. Used by
// model.ctc_weight (docs/MODELS.md#joint-ctc-training): a CTC head on the listener's
// annotations trained beside the speller.
#include <cstdint>
#include <vector>

#include "heed/autograd/var.h"

namespace heed {

struct CtcResult {
  Var loss;                  // 0-d: the sum of the feasible rows' negative log-likelihoods
  std::int64_t infeasible;   // rows whose target no alignment of their frames can emit (0 in the sum)
};

// logits (B, T, V); frame_lengths (B) each in [0, T]; targets: one symbol sequence a row, each
// symbol in [0, V) and not blank. heed::Error on any other input.
CtcResult ctc_loss(const Var& logits, const std::vector<std::int64_t>& frame_lengths,
                   const std::vector<std::vector<std::int32_t>>& targets, std::int32_t blank);

}  // namespace heed
