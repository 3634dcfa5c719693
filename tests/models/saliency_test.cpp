// Saliency (docs/MODELS.md#saliency) against finite differences, in double precision: for
// each target position t and source position j, the gradient of log p(y_t | y_<t, x) with
// respect to the source embedding e(x_j) equals the central difference of that log-probability
// in the row of src_emb.weight that x_j looks up (each source token occurs once per sentence).
#include <gtest/gtest.h>

#include <cmath>

#include "heed/autograd/tape.h"
#include "heed/models/model_registry.h"
#include "support/tiny_models.h"
#include "support/token_batches.h"

namespace heed {
namespace {


// log p(y_t | y_<t, x) of every (b, t), teacher forced.
std::vector<double> log_probs(const Seq2Seq& m, const TokenBatch& src, const TokenBatch& in,
                              const std::vector<std::int32_t>& out) {
  NoGradGuard no_grad;
  const Tensor logits = m.forward(src, in).value();
  const std::int64_t rows = logits.dim(0), V = logits.dim(1);
  std::vector<double> lp(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    double mx = -1e300, z = 0;
    for (std::int64_t v = 0; v < V; ++v) mx = std::max(mx, logits.at({r, v}));
    for (std::int64_t v = 0; v < V; ++v) z += std::exp(logits.at({r, v}) - mx);
    lp[static_cast<std::size_t>(r)] =
        logits.at({r, out[static_cast<std::size_t>(r)]}) - mx - std::log(z);
  }
  return lp;
}

class SaliencyTest : public ::testing::TestWithParam<ModelKind> {};

TEST_P(SaliencyTest, EqualsFiniteDifferencesOfTheSourceEmbeddings) {
  Rng rng(7);
  auto model = make_model(testing::tiny_config(std::string(enum_name(GetParam()))), rng, DType::f64);
  model->eval();
  // Two sentences of different lengths; within each, every source token differs.
  const TokenBatch src = testing::padded_batch(4, {{4, 5, 6, kEos}, {7, 8, kEos}});
  const TokenBatch in_fixed = testing::padded_batch(3, {{kBos, 3, 4}, {kBos, 5}});
  const std::vector<std::int32_t> out = {3, 4, kEos, 5, kEos, 0};
  const Saliency s = model->saliency(src, in_fixed, out);
  const std::int64_t B = 2, n = 3, m = 4;
  ASSERT_EQ(s.norm.size(), static_cast<std::size_t>(B * n * m));

  Var weight;
  for (auto& [name, p] : model->named_parameters())
    if (name == "src_emb.weight") weight = p;
  ASSERT_TRUE(weight.defined());
  Tensor& w = const_cast<Tensor&>(weight.value());
  const double h = 1e-6;
  for (std::int64_t b = 0; b < B; ++b) {
    for (std::int64_t j = 0; j < src.lengths[static_cast<std::size_t>(b)]; ++j) {
      const std::int32_t id = src.ids[static_cast<std::size_t>(b * m + j)];
      std::vector<std::vector<double>> grad(static_cast<std::size_t>(n));  // [t][e]
      std::vector<double> value;
      for (std::int64_t e = 0; e < w.dim(1); ++e) {
        const double v = w.at({id, e});
        value.push_back(v);
        w.set({id, e}, v + h);
        const auto up = log_probs(*model, src, in_fixed, out);
        w.set({id, e}, v - h);
        const auto down = log_probs(*model, src, in_fixed, out);
        w.set({id, e}, v);
        for (std::int64_t t = 0; t < n; ++t)
          grad[static_cast<std::size_t>(t)].push_back(
              (up[static_cast<std::size_t>(b * n + t)] - down[static_cast<std::size_t>(b * n + t)]) /
              (2 * h));
      }
      for (std::int64_t t = 0; t < n; ++t) {
        const auto at = static_cast<std::size_t>((b * n + t) * m + j);
        if (t >= in_fixed.lengths[static_cast<std::size_t>(b)]) {
          EXPECT_EQ(s.norm[at], 0.0);
          continue;
        }
        double sq = 0, dot = 0;
        for (std::size_t e = 0; e < value.size(); ++e) {
          sq += grad[static_cast<std::size_t>(t)][e] * grad[static_cast<std::size_t>(t)][e];
          dot += grad[static_cast<std::size_t>(t)][e] * value[e];
        }
        EXPECT_NEAR(s.norm[at], std::sqrt(sq), 1e-6 + 1e-5 * std::sqrt(sq)) << b << " " << t << " " << j;
        EXPECT_NEAR(s.grad_x_input[at], dot, 1e-6 + 1e-5 * std::abs(dot)) << b << " " << t << " " << j;
      }
    }
    // Padding columns stay 0.
    for (std::int64_t t = 0; t < n; ++t)
      for (std::int64_t j = src.lengths[static_cast<std::size_t>(b)]; j < m; ++j)
        EXPECT_EQ(s.norm[static_cast<std::size_t>((b * n + t) * m + j)], 0.0);
  }
  // Saliency leaves no gradient behind in the parameters.
  for (const Var& p : model->parameters()) EXPECT_FALSE(p.has_grad());
}

INSTANTIATE_TEST_SUITE_P(Kinds, SaliencyTest,
                         ::testing::Values(ModelKind::bahdanau, ModelKind::luong,
                                           ModelKind::noattn, ModelKind::transformer));

TEST(Saliency, RefusedWithoutGradients) {
  Rng rng(7);
  auto model = make_model(testing::tiny_config("bahdanau"), rng, DType::f64);
  const TokenBatch src = testing::padded_batch(2, {{4, kEos}});
  const TokenBatch in = testing::padded_batch(1, {{kBos}});
  NoGradGuard no_grad;
  EXPECT_THROW(model->saliency(src, in, std::vector<std::int32_t>{kEos}), Error);
}

}  // namespace
}  // namespace heed
