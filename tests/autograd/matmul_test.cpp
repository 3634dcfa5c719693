#include "heed/autograd/matmul.h"

#include <gtest/gtest.h>

#include "heed/autograd/dropout_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/random.h"
#include "heed/kernels/gemm.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::gradcheck;
using testing::random_var;

// A float32 variable of the given shape, uniform in [-1, 1), for the bit-for-bit comparisons.
Var float_var(Rng& rng, const Shape& shape) {
  Tensor t = Tensor::empty(shape);
  for (std::int64_t i = 0; i < t.numel(); ++i)
    t.data<float>()[i] = static_cast<float>(rng.uniform() * 2 - 1);
  return Var(t, true);
}

TEST(Linear, ForwardMatchesHandComputation) {
  Var x(Tensor::from({2, 3}, {1, 2, 3, 4, 5, 6}));
  Var W(Tensor::from({2, 3}, {1, 0, -1, 0.5, 0.5, 0.5}));
  Var b(Tensor::from({2}, {10, 20}));
  Tensor y = linear(x, W, b).value();
  EXPECT_EQ(y.shape(), Shape({2, 2}));
  EXPECT_FLOAT_EQ(y.at({0, 0}), 1 - 3 + 10);
  EXPECT_FLOAT_EQ(y.at({0, 1}), 3 + 20);
  EXPECT_FLOAT_EQ(y.at({1, 0}), 4 - 6 + 10);
  EXPECT_FLOAT_EQ(y.at({1, 1}), 7.5 + 20);
}

TEST(Linear, GradientCheck3D) {
  Var x = random_var({2, 3, 4}, 1), W = random_var({5, 4}, 2), b = random_var({5}, 3);
  EXPECT_TRUE(gradcheck([&] { return linear(x, W, b); }, {x, W, b}));
}

// linear_rows: a block of W's rows (and b's), equal to linear with the sliced weight; its
// gradient lands in that block of W's and b's gradients only (float64 finite differences).
TEST(LinearRows, ForwardIsLinearOfTheBlockAndGradientsCheck) {
  Var x = random_var({2, 3, 4}, 1), W = random_var({6, 4}, 2), b = random_var({6}, 3);
  Var Wb(W.value().slice(0, 2, 5).contiguous()), bb(b.value().slice(0, 2, 5).contiguous());
  const Tensor want = linear(x, Wb, bb).value();
  const Tensor got = linear_rows(x, W, b, 2, 3).value();
  ASSERT_EQ(got.shape(), Shape({2, 3, 3}));
  for (std::int64_t i = 0; i < got.numel(); ++i)
    EXPECT_EQ(got.data<double>()[i], want.data<double>()[i]) << i;
  EXPECT_TRUE(gradcheck([&] { return linear_rows(x, W, b, 2, 3); }, {x, W, b}));
  EXPECT_TRUE(gradcheck([&] { return linear_rows(x, W, Var(), 0, 6); }, {x, W}));
  EXPECT_THROW(linear_rows(x, W, b, 4, 3), Error);  // past the last row
  EXPECT_THROW(linear_rows(x, W, b, 0, 0), Error);
}

TEST(Linear, RejectsMismatchedShapes) {
  Var x = random_var({2, 3}, 1), W = random_var({5, 4}, 2);
  EXPECT_THROW(linear(x, W), Error);
}

TEST(Matmul, GradientCheckAllTransposes) {
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      Var a = random_var(ta ? Shape{4, 3} : Shape{3, 4}, 4);
      Var b = random_var(tb ? Shape{5, 4} : Shape{4, 5}, 5);
      EXPECT_TRUE(gradcheck([&] { return matmul(a, b, ta, tb); }, {a, b})) << ta << tb;
    }
}

TEST(Matmul, BatchedGradientCheckAllTransposes) {
  for (int ta = 0; ta < 2; ++ta)
    for (int tb = 0; tb < 2; ++tb) {
      Var a = random_var(ta ? Shape{2, 4, 3} : Shape{2, 3, 4}, 6);
      Var b = random_var(tb ? Shape{2, 5, 4} : Shape{2, 4, 5}, 7);
      EXPECT_TRUE(gradcheck([&] { return matmul(a, b, ta, tb); }, {a, b})) << ta << tb;
    }
}

// The products write a new gradient buffer without zeroing it first (Var::
// grad_buffer_unzeroed) and accumulate into one that exists: an input that reaches the loss
// twice, through two products or a product and a sum, gets both contributions.
TEST(Matmul, AnInputUsedTwiceAccumulatesBothGradients) {
  Var a = random_var({3, 3}, 8), x = random_var({2, 3}, 9), W = random_var({3, 3}, 10);
  EXPECT_TRUE(gradcheck([&] { return matmul(a, a, false, true); }, {a}));
  EXPECT_TRUE(gradcheck([&] { return matmul(a, a, true, false); }, {a}));
  EXPECT_TRUE(gradcheck([&] { return add(linear(x, W), x); }, {x, W}));
  EXPECT_TRUE(gradcheck([&] { return linear(linear(x, W), W); }, {x, W}));
}

// linear_relu: relu(linear(...)) bit for bit, forward and backward (float64 finite
// differences too), on a batch large enough to split across two threads.
TEST(LinearRelu, IsReluOfLinearAndGradientsCheck) {
  Var x = random_var({2, 3, 4}, 11), W = random_var({5, 4}, 12), b = random_var({5}, 13);
  EXPECT_TRUE(gradcheck([&] { return linear_relu(x, W, b); }, {x, W, b}));
  EXPECT_TRUE(gradcheck([&] { return linear_relu(x, W); }, {x, W}));
  const kernels::ScopedNumThreads two(2);
  Rng rng(5);
  Var X = float_var(rng, {300, 64}), V = float_var(rng, {256, 64}), c = float_var(rng, {256}),
      dY = float_var(rng, {300, 256});
  std::vector<Tensor> grads[2];
  Tensor values[2];
  for (int fused = 0; fused < 2; ++fused) {
    Tape::current().clear();
    for (const Var& v : {X, V, c}) v.clear_grad();
    Var y = fused ? linear_relu(X, V, c) : relu(linear(X, V, c));
    Tape::current().backward(y, dY.value());
    values[fused] = y.value();
    grads[fused] = {X.grad(), V.grad(), c.grad()};
  }
  Tape::current().clear();
  for (std::int64_t i = 0; i < values[0].numel(); ++i)
    ASSERT_EQ(values[0].data<float>()[i], values[1].data<float>()[i]) << i;
  for (std::size_t g = 0; g < 3; ++g)
    for (std::int64_t i = 0; i < grads[0][g].numel(); ++i)
      ASSERT_EQ(grads[0][g].data<float>()[i], grads[1][g].data<float>()[i]) << g << " " << i;
}

// An empty inner dimension: the product writes nothing, the gradient is zero.
TEST(Matmul, EmptyInnerDimensionGivesZeroGradients) {
  Var a(Tensor::full({2, 3}, 1.0), true), b(Tensor::full({3, 0}, 1.0), true);
  Tape::current().clear();
  Var y = matmul(a, b);
  ASSERT_EQ(y.value().shape(), Shape({2, 0}));
  Var c(Tensor::full({0, 2}, 1.0), true), d(Tensor::full({2, 4}, 1.0), true);
  Var z = matmul(c, d);  // d's gradient sums over c's 0 rows
  Tape::current().backward(z, Tensor::zeros({0, 4}));
  ASSERT_TRUE(d.has_grad());
  for (std::int64_t i = 0; i < 8; ++i) EXPECT_EQ(d.grad().data<float>()[i], 0.0f) << i;
  Tape::current().clear();
}

TEST(Tape, NoGradGuardRecordsNothing) {
  Tape::current().clear();
  Var a = random_var({2, 2}, 1), b = random_var({2, 2}, 2);
  {
    NoGradGuard g;
    Var y = matmul(a, b);
    EXPECT_FALSE(y.requires_grad());
  }
  EXPECT_EQ(Tape::current().size(), 0u);
}

// linear_relu_dropout: dropout(relu(linear(...))) bit for bit with the same generator, forward
// and backward, on two threads; finite differences with the mask held fixed (a generator
// seeded the same at every evaluation).
TEST(LinearReluDropout, IsDropoutOfReluOfLinearAndGradientsCheck) {
  Var x = random_var({2, 3, 4}, 21), W = random_var({5, 4}, 22), b = random_var({5}, 23);
  EXPECT_TRUE(gradcheck(
      [&] {
        Rng r(3);
        return linear_relu_dropout(x, W, b, 0.3, r);
      },
      {x, W, b}));
  const kernels::ScopedNumThreads two(2);
  Rng rng(6);
  Var X = float_var(rng, {300, 64}), V = float_var(rng, {256, 64}), c = float_var(rng, {256}),
      dY = float_var(rng, {300, 256});
  for (double p : {0.1, 0.5, 1.0}) {
    std::vector<Tensor> grads[2];
    Tensor values[2];
    std::uint64_t after[2] = {};
    for (int fused = 0; fused < 2; ++fused) {
      Tape::current().clear();
      for (const Var& v : {X, V, c}) v.clear_grad();
      Rng r(17);
      Var y =
          fused ? linear_relu_dropout(X, V, c, p, r) : dropout(relu(linear(X, V, c)), p, r, true);
      Tape::current().backward(y, dY.value());
      values[fused] = y.value();
      grads[fused] = {X.grad(), V.grad(), c.grad()};
      after[fused] = r.next();
    }
    Tape::current().clear();
    EXPECT_EQ(after[0], after[1]) << "the same draws from the generator";
    std::int64_t dropped = 0;
    for (std::int64_t i = 0; i < values[0].numel(); ++i) {
      ASSERT_EQ(values[0].data<float>()[i], values[1].data<float>()[i]) << p << " " << i;
      dropped += values[0].data<float>()[i] == 0.f;
    }
    EXPECT_GT(dropped, 0);
    for (std::size_t g = 0; g < 3; ++g)
      for (std::int64_t i = 0; i < grads[0][g].numel(); ++i)
        ASSERT_EQ(grads[0][g].data<float>()[i], grads[1][g].data<float>()[i])
            << p << " " << g << " " << i;
  }
}

}  // namespace
}  // namespace heed
