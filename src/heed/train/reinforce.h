#pragma once
// The REINFORCE loss that trains hard attention (docs/MODELS.md#hard-attention; Xu et al.
// 2015, sec. 4.1; Mnih et al. 2014). A teacher-forced forward pass of a model with hard
// attention samples one source position j_bt per sentence b and decoder step t, and leaves
// log pi(j_bt) and the entropy H(pi_bt) in a HardAttentionTrace. With N the real target tokens
// of the batch (the cross-entropy's mean divides by it), |y_b| sentence b's target length,
// NLL_b its summed negative log-likelihood under the samples and beta the baseline per token:
//
//   loss = CE  +  (1/N) sum_b [ lambda_r * stopgrad(NLL_b - beta |y_b|) * sum_{t<|y_b|} log pi(j_bt)
//                               - lambda_e * sum_{t<|y_b|} H(pi_bt) ]
//
// Its gradient is the score-function estimate of d E[NLL]/d theta (plus the entropy bonus):
// a sample with a lower NLL than the baseline has its log-probability raised. beta is an
// exponential moving average of the per-token NLL of earlier batches (the first batch uses
// its own mean), so longer sentences get a proportionally larger baseline.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/models/run_mode.h"

namespace heed {

struct ReinforceOptions {
  double weight = 1.0;          // lambda_r (training.reinforce_weight)
  double entropy_weight = 0.0;  // lambda_e (training.entropy_weight)
  double baseline_decay = 0.9;  // beta <- decay * beta + (1 - decay) * batch mean (training.baseline_decay)
};

// The score-function (REINFORCE) surrogate sum_{b,t} c_bt log pi_bt of log_prob (one (B)
// entry per step t, n steps) and coefficients c (B, n) row-major, constants: its gradient is
// sum c_bt grad log pi_bt. Both hard attention on text (below) and the recurrent attention
// model's location policy (train/ram_loss.h) put their advantages into c.
Var score_function_term(const std::vector<Var>& log_prob, const std::vector<double>& coefficients);

// The moving-average baseline (per target token); part of the training state.
struct ReinforceBaseline {
  bool has_value = false;
  double per_token = 0.0;
};

// beta <- decay * beta + (1 - decay) * batch_mean (the batch's per-token NLL); the first
// batch sets beta to its mean.
void update_baseline(ReinforceBaseline& baseline, double batch_mean, double decay);

// NLL_b = -sum_t log softmax(logits)[row, target] over sentence b's rows, from logits (R, V)
// holding the real positions only in (b, t) order (Seq2Seq::forward_packed) and their
// targets; lengths[b] rows belong to sentence b. No gradient (the reward).
std::vector<double> sentence_nll(const Tensor& logits, std::span<const std::int32_t> targets,
                                 std::span<const std::int64_t> lengths);

// The REINFORCE term above for one batch (add it to the cross-entropy mean before backward),
// then baseline updated with the batch's per-token NLL. trace holds one (B) entry per teacher-
// forced step (t = 0..n-1); steps t >= lengths[b] are masked out. normaliser is N.
// batch_mean: the whole batch's per-token NLL when these sentences are one rank's share of a
// data-parallel batch (every rank then updates the same baseline); by default their own.
Var reinforce_loss(const HardAttentionTrace& trace, std::span<const double> nll,
                   std::span<const std::int64_t> lengths, double normaliser,
                   const ReinforceOptions& options, ReinforceBaseline& baseline,
                   std::optional<double> batch_mean = std::nullopt);

}  // namespace heed
