// The recurrent attention model's loss (train/ram_loss.h, docs/MODELS.md#recurrent-attention-model):
// gradients in double against finite differences with the sampled locations held fixed, the
// three known pitfalls of public implementations (the classifier's loss reaches neither the
// location policy nor the baseline; the policy's gradient stops before the core; the baseline
// term trains the baseline alone), and the REINFORCE estimator's expectation on a case whose
// gradient is known in closed form, with and without a baseline.
#include <gtest/gtest.h>

#include <cmath>

#include "heed/autograd/gaussian_op.h"
#include "heed/autograd/tape.h"
#include "heed/models/ram.h"
#include "heed/train/ram_loss.h"
#include "heed/train/reinforce.h"
#include "support/gradcheck.h"
#include "support/tiny_models.h"

namespace heed {
namespace {

using testing::gradcheck;
using testing::random_tensor;

// The models' tests' tiny RAM (three glimpses of two 2x2 scales) with the given core.
RamConfig tiny(RamCore core) {
  RamConfig c = testing::tiny_image_config("ram", 8, 8).ram;
  c.core = core;
  c.location_std = 0.3;
  return c;
}

// Images of two rows, values in [0, 1].
Var images() { return Var(random_tensor({2, 1, 8, 8}, 5, 0.0, 1.0)); }

// l_1, l_2 for both rows, inside (-1, 1) and away from pixel edges' worth of change.
std::vector<Tensor> fixed_locations() {
  return {Tensor::from({2, 2}, {0.31, -0.52, -0.44, 0.12}, DType::f64),
          Tensor::from({2, 2}, {-0.27, 0.66, 0.58, -0.35}, DType::f64)};
}

const std::vector<std::int32_t> kLabels{1, 2};

bool all_zero(const std::vector<Var>& params) {
  for (const Var& p : params)
    if (p.has_grad())
      for (double g : p.grad().to_vector())
        if (g != 0.0) return false;
  return true;
}

bool any_nonzero(const std::vector<Var>& params) { return !all_zero(params); }

class RamLossTest : public ::testing::TestWithParam<RamCore> {};

// Each term against finite differences in the parameters it trains, and the whole loss in
// the classifier's and the policy's. (A finite difference in the glimpse network or the core
// also moves mu_t and b_t, which read the core state detached, and one in the baseline moves
// the REINFORCE term's advantage, held constant by design: their gradients are checked on
// the term that trains them.)
TEST_P(RamLossTest, GradientMatchesFiniteDifferencesWithTheSampleFixed) {
  Rng init(11);
  RecurrentAttentionModel model(tiny(GetParam()), 3, 1, init, DType::f64);
  const Var x = images();
  const std::vector<Tensor> given = fixed_locations();
  auto term = [&](Var RamLoss::*part) {
    return [&, part] {
      RamOutput out = model.forward(x, RamLocations::given, nullptr, &given);
      return ram_loss(out, kLabels, 0.7).*part;
    };
  };
  auto join = [](std::initializer_list<std::vector<Var>> parts) {
    std::vector<Var> all;
    for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
    return all;
  };
  EXPECT_TRUE(gradcheck(term(&RamLoss::classification),
                        join({model.glimpse_parameters(), model.core_parameters(),
                              model.classifier_parameters()})));
  EXPECT_TRUE(gradcheck(term(&RamLoss::reinforce), model.location_parameters()));
  EXPECT_TRUE(gradcheck(term(&RamLoss::baseline), model.baseline_parameters()));
  EXPECT_TRUE(gradcheck(term(&RamLoss::total),
                        join({model.classifier_parameters(), model.location_parameters()})));
}

// Pitfall 1: the location is data to the glimpse network, so the classifier's loss gives the
// policy (and the baseline) no gradient.
TEST_P(RamLossTest, ClassificationLossLeavesThePolicyAndTheBaselineAlone) {
  Rng init(12), draws(3);
  RecurrentAttentionModel model(tiny(GetParam()), 3, 1, init, DType::f64);
  model.zero_grad();
  RamOutput out = model.forward(images(), RamLocations::sample, &draws);
  Var loss = ram_loss(out, kLabels).classification;
  Tape::current().backward(loss);
  EXPECT_TRUE(all_zero(model.location_parameters()));
  EXPECT_TRUE(all_zero(model.baseline_parameters()));
  EXPECT_TRUE(any_nonzero(model.glimpse_parameters()));
  EXPECT_TRUE(any_nonzero(model.core_parameters()));
  EXPECT_TRUE(any_nonzero(model.classifier_parameters()));
}

// Pitfall 2: the policy reads the core state detached, so REINFORCE trains the policy only.
TEST_P(RamLossTest, PolicyGradientStopsBeforeTheCore) {
  Rng init(13), draws(4);
  RecurrentAttentionModel model(tiny(GetParam()), 3, 1, init, DType::f64);
  model.zero_grad();
  RamOutput out = model.forward(images(), RamLocations::sample, &draws);
  Var loss = ram_loss(out, kLabels).reinforce;
  Tape::current().backward(loss);
  EXPECT_TRUE(any_nonzero(model.location_parameters()));
  EXPECT_TRUE(all_zero(model.core_parameters()));
  EXPECT_TRUE(all_zero(model.glimpse_parameters()));
  EXPECT_TRUE(all_zero(model.baseline_parameters()));
  EXPECT_TRUE(all_zero(model.classifier_parameters()));
}

// Pitfall 3's remedy stays in its lane: the baseline's squared error trains the baseline alone.
TEST_P(RamLossTest, BaselineTermTrainsOnlyTheBaseline) {
  Rng init(14), draws(5);
  RecurrentAttentionModel model(tiny(GetParam()), 3, 1, init, DType::f64);
  model.zero_grad();
  RamOutput out = model.forward(images(), RamLocations::sample, &draws);
  Var loss = ram_loss(out, kLabels).baseline;
  Tape::current().backward(loss);
  EXPECT_TRUE(any_nonzero(model.baseline_parameters()));
  EXPECT_TRUE(all_zero(model.location_parameters()));
  EXPECT_TRUE(all_zero(model.core_parameters()));
  EXPECT_TRUE(all_zero(model.glimpse_parameters()));
  EXPECT_TRUE(all_zero(model.classifier_parameters()));
}

INSTANTIATE_TEST_SUITE_P(Cores, RamLossTest, ::testing::Values(RamCore::rnn, RamCore::lstm),
                         [](const auto& info) { return std::string(enum_name(info.param)); });

TEST(RamLoss, OneGlimpseIsClassificationAlone) {
  RamConfig c = tiny(RamCore::rnn);
  c.glimpses = 1;
  Rng init(1), draws(2);
  RecurrentAttentionModel model(c, 3, 1, init, DType::f64);
  RamOutput out = model.forward(images(), RamLocations::sample, &draws);
  RamLoss loss = ram_loss(out, kLabels);
  EXPECT_FALSE(loss.reinforce.defined());
  EXPECT_DOUBLE_EQ(loss.total.value().item(), loss.classification.value().item());
  Tape::current().backward(loss.total);
}

TEST(RamLoss, RewardIsOneWhereTheArgmaxIsTheLabel) {
  const Tensor logits = Tensor::from({3, 3}, {0.1, 2.0, -1.0, 3.0, 0.0, 0.5, 1.0, 1.0, 0.0}, DType::f64);
  EXPECT_EQ(ram_reward(logits, {1, 2, 0}), (std::vector<double>{1.0, 0.0, 1.0}));
}

// The REINFORCE estimator in expectation: for l ~ N(mu, sigma^2 I) in 2-D and the reward
// R(l) = -|l - c|^2, E[R] = -|mu - c|^2 - 2 sigma^2, so dE[R]/dmu = -2 (mu - c). Each of N
// rows draws once around the same mu; minus the gradient of the REINFORCE surrogate with
// respect to row b's mean is that draw's estimate, and their mean must come within 4
// standard errors of the true gradient, with a baseline as without one. The baseline (here
// E[R], the best constant) must shrink the estimator's variance: the third known pitfall.
TEST(RamLoss, ReinforceEstimatorIsUnbiasedAndTheBaselineCutsItsVariance) {
  const std::int64_t N = 20000;
  const double sigma = 0.2, mu0 = 0.3, mu1 = -0.1, c0 = -0.2, c1 = 0.4;
  const double expected_reward = -((mu0 - c0) * (mu0 - c0) + (mu1 - c1) * (mu1 - c1)) -
                                 2 * sigma * sigma;
  const double truth[2] = {-2 * (mu0 - c0), -2 * (mu1 - c1)};
  double variance[2] = {0, 0};
  for (int with_baseline = 0; with_baseline < 2; ++with_baseline) {
    std::vector<double> m(static_cast<std::size_t>(2 * N));
    for (std::int64_t b = 0; b < N; ++b) m[2 * b] = mu0, m[2 * b + 1] = mu1;
    Var mean(Tensor::from({N, 2}, m, DType::f64), true);
    Rng rng(99);
    const Tensor l = gaussian_sample(mean, sigma, rng);
    const std::vector<double> lv = l.to_vector();
    std::vector<double> advantage(static_cast<std::size_t>(N));
    for (std::int64_t b = 0; b < N; ++b) {
      const double d0 = lv[2 * b] - c0, d1 = lv[2 * b + 1] - c1;
      const double reward = -(d0 * d0 + d1 * d1);
      advantage[b] = -(reward - (with_baseline ? expected_reward : 0.0));  // minimise -R
    }
    Var surrogate = score_function_term({gaussian_log_prob(mean, l, sigma)}, advantage);
    Tape::current().backward(surrogate);
    const std::vector<double> g = mean.grad().to_vector();
    for (int d = 0; d < 2; ++d) {
      double s = 0, s2 = 0;
      for (std::int64_t b = 0; b < N; ++b) {
        const double estimate = -g[2 * b + d];  // the gradient of E[R], from one draw
        s += estimate;
        s2 += estimate * estimate;
      }
      const double mean_estimate = s / N, var = s2 / N - mean_estimate * mean_estimate;
      const double stderr_ = std::sqrt(var / N);
      EXPECT_NEAR(mean_estimate, truth[d], 4 * stderr_) << "dimension " << d << ", baseline "
                                                         << with_baseline;
      if (with_baseline) EXPECT_LT(var, 0.5 * variance[d]) << "dimension " << d;
      else variance[d] = var;
    }
  }
}

}  // namespace
}  // namespace heed
