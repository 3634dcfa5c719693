#include "heed/autograd/copy_loss_op.h"

#include <cmath>

#include <gtest/gtest.h>

#include "heed/autograd/index.h"
#include "heed/autograd/matmul.h"
#include "heed/autograd/softmax_op.h"
#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::gradcheck;
using testing::random_var;

// P(t) straight from the definition, in double: p softmax(x)_t + (1 - p) sum_{j: c_j = t} a_j.
double reference_prob(const Tensor& x, const Tensor& g, const Tensor& a,
                      const std::vector<std::int32_t>& ids, std::int64_t r, std::int32_t t) {
  const std::int64_t V = x.dim(1), m = a.dim(1);
  const double p = 1 / (1 + std::exp(-g.at({r})));
  double z = 0;
  for (std::int64_t c = 0; c < V; ++c) z += std::exp(x.at({r, c}));
  double prob = t < V ? p * std::exp(x.at({r, t})) / z : 0.0;
  for (std::int64_t j = 0; j < m; ++j)
    if (ids[static_cast<std::size_t>(r * m + j)] == t) prob += (1 - p) * a.at({r, j});
  return prob;
}

// Four rows over V = 5 and m = 3 source positions; extended ids 5 and 6.
struct Case {
  std::vector<std::int32_t> ids = {1, 5, 2,   // target 1: in the vocabulary and the source
                                   4, 4, 6,   // target 6: copied only
                                   3, 0, 0,   // target 2: generated only (no source position)
                                   5, 2, 6};  // ignored row
  std::vector<std::int32_t> targets = {1, 6, 2, -1};
};

TEST(CopyLoss, ForwardMatchesTheDefinition) {
  Case c;
  Tensor x = testing::random_tensor({4, 5}, 1, -2, 2);
  Tensor g = testing::random_tensor({4}, 2, -2, 2);
  Tensor a = testing::random_tensor({4, 3}, 3, 0.05, 1);
  CrossEntropyResult r = copy_loss_with_count(Var(x), Var(g), Var(a), c.ids, c.targets, 2, -1);
  EXPECT_EQ(r.count, 3);
  double want = 0;
  for (std::int64_t row = 0; row < 3; ++row)
    want -= std::log(reference_prob(x, g, a, c.ids, row, c.targets[static_cast<std::size_t>(row)]));
  EXPECT_NEAR(r.loss.value().item(), want / 3, 1e-12);
}

TEST(CopyLoss, GradientCheck) {
  Case c;
  Var x = random_var({4, 5}, 4, -2, 2);
  Var g = random_var({4}, 5, -2, 2);
  Var a = random_var({4, 3}, 6, 0.05, 1);
  EXPECT_TRUE(gradcheck([&] { return copy_loss_with_count(x, g, a, c.ids, c.targets, 2, -1).loss; },
                        {x, g, a}));
}

TEST(CopyLoss, GradientOfPGenThroughASigmoidAndAnAttentionSoftmax) {
  // p_gen's gradient as the model sees it: gate = w . f + b, alpha = softmax(scores).
  Case c;
  Var f = random_var({4, 6}, 7);
  Var w = random_var({6}, 8);
  Var x = random_var({4, 5}, 9, -2, 2);
  Var s = random_var({4, 3}, 10, -2, 2);
  auto gate = [&] { return reshape(matmul(f, reshape(w, {6, 1})), {4}); };
  EXPECT_TRUE(gradcheck(
      [&] { return copy_loss_with_count(x, gate(), softmax(s), c.ids, c.targets, 2, -1).loss; },
      {f, w, x, s}));
}

TEST(CopyLoss, OnlyCopyingOrOnlyGeneratingIsFiniteAtSaturatedGates) {
  Case c;
  Tensor x = testing::random_tensor({4, 5}, 11, -2, 2);
  Tensor a = testing::random_tensor({4, 3}, 12, 0.05, 1);
  for (double gate : {-200.0, 200.0}) {
    Var g(Tensor::from({4}, {gate, gate, gate, gate}, DType::f64), true);
    Var xv(x, true), av(a, true);
    Tape::current().clear();
    Var loss = copy_loss_with_count(xv, g, av, c.ids, c.targets, 2, -1).loss;
    EXPECT_TRUE(std::isfinite(loss.value().item())) << "gate " << gate;
    Tape::current().backward(loss);
    for (const Var* v : {&xv, &g, &av})
      for (double d : v->grad().to_vector()) EXPECT_TRUE(std::isfinite(d)) << "gate " << gate;
  }
  // A target only the source holds, whose attention weight underflowed to 0: finite.
  Tensor zero = Tensor::zeros({1, 3}, DType::f32);
  Tensor xf = Tensor::zeros({1, 5}, DType::f32), gf = Tensor::zeros({1}, DType::f32);
  CrossEntropyResult r = copy_loss_with_count(Var(xf), Var(gf), Var(zero),
                                              std::vector<std::int32_t>{5, 0, 0}, {5}, 1, -1);
  EXPECT_TRUE(std::isfinite(r.loss.value().item()));
}

TEST(CopyLoss, LogProbsAreTheDistributionTheLossReads) {
  Case c;
  Tensor x = testing::random_tensor({4, 5}, 13, -2, 2);
  Tensor g = testing::random_tensor({4}, 14, -2, 2);
  Var s(testing::random_tensor({4, 3}, 15, -2, 2));
  Tensor a = softmax(s).value();
  Tensor lp = copy_log_probs(x, g, a, c.ids, 2);
  ASSERT_EQ(lp.shape(), Shape({4, 7}));
  for (std::int64_t r = 0; r < 4; ++r) {
    double total = 0;
    for (std::int32_t w = 0; w < 7; ++w) {
      const double want = reference_prob(x, g, a, c.ids, r, w);
      if (want == 0) {
        EXPECT_TRUE(std::isinf(lp.at({r, w})) && lp.at({r, w}) < 0) << r << ", " << w;
      } else {
        EXPECT_NEAR(lp.at({r, w}), std::log(want), 1e-12) << r << ", " << w;
      }
      total += std::exp(lp.at({r, w}));
    }
    EXPECT_NEAR(total, 1.0, 1e-12) << "row " << r;
  }
}

TEST(CopyLoss, RefusesIdsOutsideTheExtendedVocabulary) {
  Case c;
  Var x = random_var({4, 5}, 16);
  Var g = random_var({4}, 17);
  Var a = random_var({4, 3}, 18, 0.1, 1);
  EXPECT_THROW(copy_loss_with_count(x, g, a, c.ids, c.targets, 1, -1), Error);  // copy id 6
  std::vector<std::int32_t> far = {1, 7, 2, -1};
  EXPECT_THROW(copy_loss_with_count(x, g, a, c.ids, far, 2, -1), Error);  // target 7
  EXPECT_THROW(copy_loss_with_count(x, g, a, std::vector<std::int32_t>(11, 0), c.targets, 2, -1),
               Error);
}

}  // namespace
}  // namespace heed
