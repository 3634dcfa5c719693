#pragma once
// Joint CTC-attention training (docs/MODELS.md#joint-ctc-training; Kim, Hori and Watanabe
// 2017): beside the speller's cross-entropy, a CTC loss (autograd/ctc_op.h) of a head over the
// listener's annotations (model.ctc_weight = lambda, models/listener.h):
//
//   loss = (1 - lambda) ce + lambda / N sum_b CTC_b
//
// with CTC_b the negative log-likelihood of transcript b (its target tokens without the end
// of sentence) over its annotations, the blank being the padding id, and N the real target
// tokens the cross-entropy's mean divides by, so that both terms are per target token.
#include <cstdint>
#include <vector>

#include "heed/autograd/var.h"

namespace heed {

// ce: the cross-entropy term as the trainer weighs it (a mean over N tokens, or a rank's share
// of the whole batch's); ctc_logits (B, m, V): the head's (Seq2Seq::set_ctc_trace);
// annotation_lengths (B); tgt_out (B, n) row-major: the targets, PAD after each row's end of
// sentence. A scalar on the tape.
Var joint_ctc_loss(const Var& ce, const Var& ctc_logits,
                   const std::vector<std::int64_t>& annotation_lengths,
                   const std::vector<std::int32_t>& tgt_out, std::int64_t n, double tokens,
                   double lambda);

}  // namespace heed
