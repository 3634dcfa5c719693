#include "heed/autograd/cross_entropy_op.h"

#include <cmath>

#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

// Straight from the definition, for comparison.
double reference_loss(const Tensor& logits, const std::vector<std::int32_t>& targets,
                      std::int32_t ignore, double eps) {
  const std::int64_t rows = logits.dim(0), cols = logits.dim(1);
  double total = 0;
  int count = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    if (targets[static_cast<std::size_t>(r)] == ignore) continue;
    double z = 0;
    for (std::int64_t c = 0; c < cols; ++c) z += std::exp(logits.at({r, c}));
    double lse = std::log(z), smooth = 0;
    for (std::int64_t c = 0; c < cols; ++c) smooth += lse - logits.at({r, c});
    total += (1 - eps) * (lse - logits.at({r, targets[static_cast<std::size_t>(r)]})) +
             eps * smooth / static_cast<double>(cols);
    ++count;
  }
  return total / count;
}

TEST(CrossEntropy, ForwardMatchesHandComputation) {
  Var x(Tensor::from({1, 3}, {1, 2, 3}, DType::f64));
  const double lse = std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  EXPECT_NEAR(cross_entropy(x, {2}).value().item(), lse - 3, 1e-12);  // 0.40760596...
  EXPECT_NEAR(cross_entropy(x, {2}).value().item(), 0.4076059644443803, 1e-12);
  // eps = 0.1: 0.9 * (lse - 3) + 0.1 * (lse - mean(x))
  EXPECT_NEAR(cross_entropy(x, {2}, -100, 0.1).value().item(), 0.9 * (lse - 3) + 0.1 * (lse - 2),
              1e-12);
}

TEST(CrossEntropy, IgnoreIndexAndCount) {
  Tensor logits = testing::random_tensor({4, 5}, 1, -3, 3);
  std::vector<std::int32_t> t = {3, 0, 1, 0};
  CrossEntropyResult r = cross_entropy_with_count(Var(logits), t, /*ignore_index=*/0, 0.2);
  EXPECT_EQ(r.count, 2);
  EXPECT_NEAR(r.loss.value().item(), reference_loss(logits, t, 0, 0.2), 1e-12);
  EXPECT_EQ(r.loss.value().ndim(), 0);
}

TEST(CrossEntropy, AllIgnoredGivesZero) {
  Var x = random_var({2, 3}, 2);
  Tape::current().clear();
  CrossEntropyResult r = cross_entropy_with_count(x, {0, 0}, 0);
  EXPECT_EQ(r.count, 0);
  EXPECT_EQ(r.loss.value().item(), 0.0);
  Tape::current().backward(r.loss);
  if (x.has_grad()) {
    for (double g : x.grad().to_vector()) EXPECT_EQ(g, 0.0);
  }
}

TEST(CrossEntropy, GradientCheck) {
  Var x = random_var({5, 7}, 3, -3, 3);
  std::vector<std::int32_t> t = {6, 0, 2, 0, 3};
  EXPECT_TRUE(gradcheck([&] { return cross_entropy(x, t); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return cross_entropy(x, t, 0); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return cross_entropy(x, t, 0, 0.1); }, {x}));
  // 3-D logits: leading dimensions are rows.
  Var y = random_var({2, 3, 4}, 4);
  std::vector<std::int32_t> t3 = {1, 2, 3, 0, 1, 2};
  EXPECT_TRUE(gradcheck([&] { return cross_entropy(y, t3, -100, 0.3); }, {y}));
}

TEST(CrossEntropy, LargeBatchMatchesReferenceInFloat) {
  // Big enough to take the threaded path.
  const std::int64_t rows = 64, cols = 1000;
  Tensor logits = testing::random_tensor({rows, cols}, 5, -4, 4);
  std::vector<std::int32_t> t(rows);
  for (std::int64_t r = 0; r < rows; ++r)
    t[static_cast<std::size_t>(r)] = static_cast<std::int32_t>((r * 37) % cols);
  t[3] = -100;
  const double ref = reference_loss(logits, t, -100, 0.1);
  Var xf(logits.to(DType::f32), true);
  Tape::current().clear();
  Var loss = cross_entropy(xf, t, -100, 0.1);
  EXPECT_NEAR(loss.value().item(), ref, 1e-4);
  Tape::current().backward(loss);
  // Every counted row's gradient sums to zero; the ignored row gets none.
  Tensor g = xf.grad();
  for (std::int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (std::int64_t c = 0; c < cols; ++c) s += g.at({r, c});
    EXPECT_NEAR(s, 0.0, 1e-6) << r;
  }
  for (std::int64_t c = 0; c < cols; ++c) EXPECT_EQ(g.at({3, c}), 0.0);
}

TEST(CrossEntropy, RejectsBadTargets) {
  Var x = random_var({2, 3}, 6);
  EXPECT_THROW(cross_entropy(x, {0, 3}), Error);
  EXPECT_THROW(cross_entropy(x, {0}), Error);
  EXPECT_THROW(cross_entropy(x, {0, 1}, -100, 1.5), Error);
}

}  // namespace
}  // namespace heed
