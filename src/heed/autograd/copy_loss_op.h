#pragma once
// The pointer-generator's loss (See et al. 2017; docs/MODELS.md#copy-attention) as one op
// with a hand-written backward: for each row r (a target position),
//   loss_r = -log P(t_r),  P(w) = p_gen P_vocab(w) + (1 - p_gen) sum_{j: copy_ids[r, j] = w} alpha_rj
// with P_vocab = softmax(logits_r), p_gen = sigmoid(gate_r), over the vocabulary of V words
// extended by the sentence's source words it lacks (ids >= V). The result is the mean over
// the rows whose target is not ignore_index, as cross_entropy_op.h's. Taking the gate's logit
// rather than p_gen keeps log p_gen and log(1 - p_gen) finite (kernels/copy_mixture.h).
#include <cstdint>
#include <span>
#include <vector>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/var.h"

namespace heed {

// logits (R, V), gate (R), alpha (R, m) (the attention weights each row's step computed),
// copy_ids (R * m): each source position's extended id; targets (R): extended ids in
// [0, V + extended) or ignore_index. The count is that of cross_entropy_with_count.
CrossEntropyResult copy_loss_with_count(const Var& logits, const Var& gate, const Var& alpha,
                                        std::span<const std::int32_t> copy_ids,
                                        const std::vector<std::int32_t>& targets,
                                        std::int64_t extended, std::int32_t ignore_index = -100);

// log P over the extended vocabulary, (R, V + extended), with no tape: what decoding reads.
Tensor copy_log_probs(const Tensor& logits, const Tensor& gate, const Tensor& alpha,
                      std::span<const std::int32_t> copy_ids, std::int64_t extended);

}  // namespace heed
