#include "heed/train/ram_loss.h"

#include "heed/autograd/concat_op.h"
#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/reduce_op.h"
#include "heed/base/error.h"
#include "heed/train/reinforce.h"

namespace heed {

std::vector<double> ram_reward(const Tensor& logits, const std::vector<std::int32_t>& labels) {
  HEED_CHECK(logits.ndim() == 2 && logits.dim(0) == static_cast<std::int64_t>(labels.size()),
             "ram_reward: ", labels.size(), " labels for logits ", logits.shape().str());
  const std::int64_t B = logits.dim(0), C = logits.dim(1);
  const std::vector<double> x = logits.to_vector();
  std::vector<double> reward(static_cast<std::size_t>(B), 0.0);
  for (std::int64_t b = 0; b < B; ++b) {
    std::int64_t best = 0;
    for (std::int64_t c = 1; c < C; ++c)
      if (x[static_cast<std::size_t>(b * C + c)] > x[static_cast<std::size_t>(b * C + best)]) best = c;
    reward[static_cast<std::size_t>(b)] = best == labels[static_cast<std::size_t>(b)] ? 1.0 : 0.0;
  }
  return reward;
}

RamLoss ram_loss(const RamOutput& out, const std::vector<std::int32_t>& labels,
                 double reinforce_weight) {
  RamLoss r;
  r.classification = cross_entropy(out.logits, labels);
  r.reward = ram_reward(out.logits.value(), labels);
  r.total = r.classification;
  const auto n = static_cast<std::int64_t>(out.baseline.size());
  if (n == 0) return r;
  HEED_CHECK(out.log_prob.size() == out.baseline.size(),
             "ram_loss: the forward pass drew no locations (RamLocations::sample or given)");
  const auto B = static_cast<std::int64_t>(labels.size());
  // (B, n) row-major: the advantages -lambda_r (R_b - b_bt) / B, constants; the rewards.
  const std::vector<double> b = stack(out.baseline, 1).value().to_vector();
  std::vector<double> advantage(static_cast<std::size_t>(B * n)), reward(advantage.size());
  for (std::int64_t i = 0; i < B; ++i)
    for (std::int64_t t = 0; t < n; ++t) {
      const auto k = static_cast<std::size_t>(i * n + t);
      reward[k] = r.reward[static_cast<std::size_t>(i)];
      advantage[k] = -reinforce_weight * (reward[k] - b[k]) / static_cast<double>(B);
    }
  r.reinforce = score_function_term(out.log_prob, advantage);
  const DType dtype = out.logits.dtype();
  const Var error = sub(stack(out.baseline, 1), Var(Tensor::from({B, n}, reward, dtype)));
  r.baseline = scale(sum(mul(error, error)), 1.0 / static_cast<double>(B * n));
  r.total = add(add(r.classification, r.reinforce), r.baseline);
  return r;
}

}  // namespace heed
