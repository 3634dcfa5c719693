#include "heed/train/doubly_stochastic.h"

#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/reduce_op.h"
#include "heed/base/error.h"

namespace heed {

Var doubly_stochastic_penalty(const std::vector<Var>& alphas,
                              std::span<const std::int64_t> target_lengths,
                              std::span<const std::int64_t> source_lengths, double weight,
                              double normaliser) {
  HEED_CHECK(!alphas.empty(), "doubly stochastic penalty: no attention weights were recorded");
  HEED_CHECK(normaliser > 0, "doubly stochastic penalty: normaliser must be positive, got ",
             normaliser);
  const std::int64_t B = alphas[0].dim(0), m = alphas[0].dim(1);
  HEED_CHECK(static_cast<std::int64_t>(target_lengths.size()) == B &&
                 static_cast<std::int64_t>(source_lengths.size()) == B,
             "doubly stochastic penalty: ", target_lengths.size(), " target and ",
             source_lengths.size(), " source lengths for ", B, " rows");
  const DType dtype = alphas[0].dtype();
  // Step t counts for row b while t < n_b: each alpha_t times its (B, m) mask of real steps.
  std::vector<Var> counted;
  counted.reserve(alphas.size());
  for (std::size_t t = 0; t < alphas.size(); ++t) {
    HEED_CHECK(alphas[t].dim(0) == B && alphas[t].dim(1) == m, "doubly stochastic penalty: "
               "step ", t, " has weights of shape ", alphas[t].shape().str());
    Tensor mask = Tensor::zeros({B, m}, dtype);
    for (std::int64_t b = 0; b < B; ++b)
      if (static_cast<std::int64_t>(t) < target_lengths[static_cast<std::size_t>(b)])
        for (std::int64_t i = 0; i < m; ++i) mask.set({b, i}, 1.0);
    counted.push_back(mul(alphas[t], Var(mask)));
  }
  // 1 - sum_t alpha_bti at the real positions i < m_b, 0 at the padding.
  Tensor real = Tensor::zeros({B, m}, dtype);
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t i = 0; i < source_lengths[static_cast<std::size_t>(b)] && i < m; ++i)
      real.set({b, i}, 1.0);
  const Var gap = mul(sub(Var(real), add_n(counted)), Var(real));
  return scale(sum(mul(gap, gap)), weight / normaliser);
}

}  // namespace heed
