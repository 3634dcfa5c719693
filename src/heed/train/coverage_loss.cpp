#include "heed/train/coverage_loss.h"

#include <algorithm>

#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/reduce_op.h"
#include "heed/base/error.h"

namespace heed {

Var coverage_loss(const std::vector<Var>& alphas, std::span<const std::int64_t> target_lengths,
                  double weight, double normaliser) {
  HEED_CHECK(!alphas.empty(), "coverage loss: no attention weights were recorded");
  HEED_CHECK(normaliser > 0, "coverage loss: normaliser must be positive, got ", normaliser);
  const std::int64_t B = alphas[0].dim(0), m = alphas[0].dim(1);
  HEED_CHECK(static_cast<std::int64_t>(target_lengths.size()) == B, "coverage loss: ",
             target_lengths.size(), " target lengths for ", B, " rows");
  const DType dtype = alphas[0].dtype();
  // Step 0 has no coverage (c = 0, min = 0): the terms start at step 1.
  std::vector<Var> terms;
  Var c = alphas[0];
  for (std::size_t t = 1; t < alphas.size(); ++t) {
    HEED_CHECK(alphas[t].dim(0) == B && alphas[t].dim(1) == m, "coverage loss: step ", t,
               " has weights of shape ", alphas[t].shape().str());
    // Step t counts for row b while t < n_b.
    Tensor mask = Tensor::zeros({B, m}, dtype);
    bool any = false;
    for (std::int64_t b = 0; b < B; ++b)
      if (static_cast<std::int64_t>(t) < target_lengths[static_cast<std::size_t>(b)]) {
        any = true;
        for (std::int64_t j = 0; j < m; ++j) mask.set({b, j}, 1.0);
      }
    if (any) terms.push_back(mul(minimum(alphas[t], c), Var(mask)));
    if (t + 1 < alphas.size()) c = add(c, alphas[t]);
  }
  if (terms.empty()) terms.push_back(scale(alphas[0], 0.0));  // one step: nothing covered yet
  return scale(sum(add_n(terms)), weight / normaliser);
}

double coverage_loss_sum(const Tensor& alphas, std::span<const std::int64_t> target_lengths) {
  const Tensor a = alphas.contiguous();
  HEED_CHECK(a.ndim() == 3 && static_cast<std::int64_t>(target_lengths.size()) == a.dim(0),
             "coverage loss: weights (B, n, m) and B target lengths expected, got ",
             a.shape().str(), " and ", target_lengths.size());
  const std::int64_t B = a.dim(0), n = a.dim(1), m = a.dim(2);
  double total = 0.0;
  dispatch(a.dtype(), [&]<typename T>() {
    std::vector<double> c(static_cast<std::size_t>(m));
    for (std::int64_t b = 0; b < B; ++b) {
      std::fill(c.begin(), c.end(), 0.0);
      const std::int64_t steps = std::min(n, target_lengths[static_cast<std::size_t>(b)]);
      for (std::int64_t t = 0; t < steps; ++t) {
        const T* row = a.data<T>() + (b * n + t) * m;
        for (std::int64_t j = 0; j < m; ++j) {
          const double al = static_cast<double>(row[j]);
          total += std::min(al, c[static_cast<std::size_t>(j)]);
          c[static_cast<std::size_t>(j)] += al;
        }
      }
    }
  });
  return total;
}

}  // namespace heed
