#pragma once
// The training loss of the recurrent attention model (docs/MODELS.md#recurrent-attention-model;
// Mnih et al. 2014). From one forward pass with sampled locations (models/ram.h), with
// labels y_b, reward R_b = 1 when the classifier's argmax is y_b (else 0), the baseline's
// predictions b_bt and the policy's log-probabilities log pi_bt of l_1..l_{T-1}:
//
//   classification  L_c = -(1/B) sum_b log p(y_b | x_b)
//   reinforce       L_r = -(lambda_r / B) sum_b sum_{t=1}^{T-1} stopgrad(R_b - b_bt) log pi_bt
//   baseline        L_b = (1 / (B (T-1))) sum_b sum_t (b_bt - R_b)^2
//   loss            L_c + L_r + L_b
//
// Because the model detaches what the policy and the baseline read, L_c trains the glimpse
// network, the core and the classifier; L_r the location policy alone; L_b the baseline alone.
// With one glimpse there are no locations to choose and L_r = L_b = 0.
#include <cstdint>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/models/ram.h"

namespace heed {

struct RamLoss {
  Var classification;          // L_c (a scalar)
  Var reinforce;               // L_r; undefined with one glimpse
  Var baseline;                // L_b; undefined with one glimpse
  Var total;
  std::vector<double> reward;  // R_b
};

// labels: one class per row of out.logits, in [0, classes). reinforce_weight: lambda_r
// (training.reinforce_weight).
RamLoss ram_loss(const RamOutput& out, const std::vector<std::int32_t>& labels,
                 double reinforce_weight = 1.0);

// R_b: 1 where row b's largest logit (the first on ties) is labels[b], else 0.
std::vector<double> ram_reward(const Tensor& logits, const std::vector<std::int32_t>& labels);

}  // namespace heed
