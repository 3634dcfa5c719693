#include "heed/train/reinforce.h"

#include <cmath>

#include "heed/autograd/concat_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/reduce_op.h"
#include "heed/base/error.h"

namespace heed {

std::vector<double> sentence_nll(const Tensor& logits, std::span<const std::int32_t> targets,
                                 std::span<const std::int64_t> lengths) {
  HEED_CHECK(logits.ndim() == 2 && logits.is_contiguous(),
             "sentence_nll: logits must be a contiguous (R, V), got ", logits.shape().str());
  const std::int64_t R = logits.dim(0), V = logits.dim(1);
  HEED_CHECK(static_cast<std::int64_t>(targets.size()) == R, "sentence_nll: ", targets.size(),
             " targets for ", R, " rows");
  std::int64_t rows = 0;
  for (std::int64_t l : lengths) rows += l;
  HEED_CHECK(rows == R, "sentence_nll: the lengths add up to ", rows, " rows, the logits have ", R);
  std::vector<double> out(lengths.size(), 0.0);
  dispatch(logits.dtype(), [&]<typename T>() {
    std::int64_t r = 0;
    for (std::size_t b = 0; b < lengths.size(); ++b)
      for (std::int64_t t = 0; t < lengths[b]; ++t, ++r) {
        const T* x = logits.data<T>() + r * V;
        double mx = x[0];
        for (std::int64_t v = 1; v < V; ++v) mx = std::max(mx, static_cast<double>(x[v]));
        double z = 0;
        for (std::int64_t v = 0; v < V; ++v) z += std::exp(static_cast<double>(x[v]) - mx);
        const std::int32_t y = targets[static_cast<std::size_t>(r)];
        HEED_CHECK(y >= 0 && y < V, "sentence_nll: target ", y, " outside [0, ", V, ")");
        out[b] += mx + std::log(z) - static_cast<double>(x[y]);
      }
  });
  return out;
}

Var reinforce_loss(const HardAttentionTrace& trace, std::span<const double> nll,
                   std::span<const std::int64_t> lengths, double normaliser,
                   const ReinforceOptions& options, ReinforceBaseline& baseline,
                   std::optional<double> whole_batch_mean) {
  HEED_CHECK(!trace.log_prob.empty() && trace.log_prob.size() == trace.entropy.size(),
             "reinforce_loss: the forward pass left no hard-attention samples (is the model's "
             "attention hard, in training mode, with a trace set?)");
  HEED_CHECK(nll.size() == lengths.size(), "reinforce_loss: ", nll.size(), " rewards for ",
             lengths.size(), " sentences");
  HEED_CHECK(normaliser > 0, "reinforce_loss: normaliser must be positive");
  const auto B = static_cast<std::int64_t>(lengths.size());
  const auto n = static_cast<std::int64_t>(trace.log_prob.size());
  double nll_sum = 0, tokens = 0;
  for (std::int64_t b = 0; b < B; ++b) {
    nll_sum += nll[static_cast<std::size_t>(b)];
    tokens += static_cast<double>(lengths[static_cast<std::size_t>(b)]);
  }
  const double batch_mean =
      whole_batch_mean ? *whole_batch_mean : (tokens > 0 ? nll_sum / tokens : 0.0);
  const double beta = baseline.has_value ? baseline.per_token : batch_mean;
  // Per-(b, t) coefficients with the target mask: lambda_r * advantage_b / N and -lambda_e / N.
  std::vector<double> a(static_cast<std::size_t>(B * n), 0.0), e(a.size(), 0.0);
  for (std::int64_t b = 0; b < B; ++b) {
    const std::int64_t len = lengths[static_cast<std::size_t>(b)];
    const double advantage = nll[static_cast<std::size_t>(b)] - beta * static_cast<double>(len);
    for (std::int64_t t = 0; t < std::min(len, n); ++t) {
      a[static_cast<std::size_t>(b * n + t)] = options.weight * advantage / normaliser;
      e[static_cast<std::size_t>(b * n + t)] = -options.entropy_weight / normaliser;
    }
  }
  const DType dtype = trace.log_prob.front().dtype();
  HEED_CHECK(trace.log_prob.front().dim(0) == B, "reinforce_loss: the trace has ",
             trace.log_prob.front().dim(0), " rows, the batch ", B);
  Var loss = score_function_term(trace.log_prob, a);
  if (options.entropy_weight > 0)
    loss = add(loss, sum(mul(stack(trace.entropy, 1), Var(Tensor::from({B, n}, e, dtype)))));
  update_baseline(baseline, batch_mean, options.baseline_decay);
  return loss;
}

Var score_function_term(const std::vector<Var>& log_prob, const std::vector<double>& coefficients) {
  HEED_CHECK(!log_prob.empty(), "score_function_term: no log-probabilities");
  Var lp = stack(log_prob, 1);  // (B, n)
  const std::int64_t B = lp.dim(0), n = lp.dim(1);
  HEED_CHECK(static_cast<std::int64_t>(coefficients.size()) == B * n, "score_function_term: ",
             coefficients.size(), " coefficients for ", B, " x ", n, " log-probabilities");
  return sum(mul(lp, Var(Tensor::from({B, n}, coefficients, lp.dtype()))));
}

void update_baseline(ReinforceBaseline& baseline, double batch_mean, double decay) {
  baseline.per_token =
      baseline.has_value ? decay * baseline.per_token + (1.0 - decay) * batch_mean : batch_mean;
  baseline.has_value = true;
}

}  // namespace heed
