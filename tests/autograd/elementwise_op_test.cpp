#include "heed/autograd/elementwise_op.h"

#include <cmath>

#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

Var make(const Shape& s, std::vector<double> v) {
  return Var(Tensor::from(s, v, DType::f64), true);
}

TEST(Elementwise, BinaryForwardMatchesHandComputation) {
  Var a(Tensor::from({2, 2}, {1, 2, 3, 4})), b(Tensor::from({2, 2}, {10, 20, 30, 40}));
  EXPECT_TRUE(all_close(add(a, b).value(), Tensor::from({2, 2}, {11, 22, 33, 44})));
  EXPECT_TRUE(all_close(sub(a, b).value(), Tensor::from({2, 2}, {-9, -18, -27, -36})));
  EXPECT_TRUE(all_close(mul(a, b).value(), Tensor::from({2, 2}, {10, 40, 90, 160})));
  EXPECT_TRUE(all_close(add_n({a, b, a}).value(), Tensor::from({2, 2}, {12, 24, 36, 48})));
  EXPECT_TRUE(all_close(scale(a, 0.5).value(), Tensor::from({2, 2}, {0.5, 1, 1.5, 2})));
  EXPECT_TRUE(all_close(neg(a).value(), Tensor::from({2, 2}, {-1, -2, -3, -4})));
  Var bias(Tensor::from({2}, {100, 200}));
  EXPECT_TRUE(all_close(add_bias(a, bias).value(), Tensor::from({2, 2}, {101, 202, 103, 204})));
}

TEST(Elementwise, UnaryForwardMatchesHandComputation) {
  Var x(Tensor::from({4}, {-2, -0.5, 0, 1.5}, DType::f64));
  EXPECT_TRUE(all_close(
      tanh(x).value(),
      Tensor::from({4}, {std::tanh(-2.0), std::tanh(-0.5), 0, std::tanh(1.5)}, DType::f64)));
  EXPECT_TRUE(all_close(
      sigmoid(x).value(),
      Tensor::from(
          {4}, {1 / (1 + std::exp(2.0)), 1 / (1 + std::exp(0.5)), 0.5, 1 / (1 + std::exp(-1.5))},
          DType::f64)));
  EXPECT_TRUE(all_close(relu(x).value(), Tensor::from({4}, {0, 0, 0, 1.5}, DType::f64)));
  EXPECT_TRUE(
      all_close(exp(x).value(),
                Tensor::from({4}, {std::exp(-2.0), std::exp(-0.5), 1, std::exp(1.5)}, DType::f64)));
  Var p(Tensor::from({3}, {1, std::exp(1.0), 0.5}, DType::f64));
  EXPECT_TRUE(all_close(log(p).value(), Tensor::from({3}, {0, 1, std::log(0.5)}, DType::f64)));
}

TEST(Elementwise, SigmoidDoesNotOverflow) {
  Var x(Tensor::from({2}, {-1000, 1000}));
  std::vector<double> y = sigmoid(x).value().to_vector();
  EXPECT_EQ(y[0], 0.0);
  EXPECT_EQ(y[1], 1.0);
}

TEST(Elementwise, BinaryGradientCheck) {
  Var a = random_var({2, 3, 4}, 1), b = random_var({2, 3, 4}, 2), c = random_var({2, 3, 4}, 3);
  EXPECT_TRUE(gradcheck([&] { return add(a, b); }, {a, b}));
  EXPECT_TRUE(gradcheck([&] { return sub(a, b); }, {a, b}));
  EXPECT_TRUE(gradcheck([&] { return mul(a, b); }, {a, b}));
  EXPECT_TRUE(gradcheck([&] { return add_n({a, b, c}); }, {a, b, c}));
}

TEST(Elementwise, SameInputTwiceAccumulates) {
  Var a = random_var({3, 2}, 4);
  EXPECT_TRUE(gradcheck([&] { return mul(a, a); }, {a}));
  EXPECT_TRUE(gradcheck([&] { return add_n({a, a}); }, {a}));
}

TEST(Elementwise, AddBiasGradientCheck) {
  Var x = random_var({2, 3, 4}, 5), b = random_var({4}, 6);
  EXPECT_TRUE(gradcheck([&] { return add_bias(x, b); }, {x, b}));
}

TEST(Elementwise, UnaryGradientCheck) {
  Var x = random_var({3, 4}, 7, -2, 2);
  EXPECT_TRUE(gradcheck([&] { return scale(x, -1.7); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return neg(x); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return tanh(x); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return sigmoid(x); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return exp(x); }, {x}));
  Var p = random_var({3, 4}, 8, 0.5, 2);
  EXPECT_TRUE(gradcheck([&] { return log(p); }, {p}));
  // Away from the kink at 0.
  Var r = make({6}, {-1.5, -0.3, -0.01, 0.02, 0.4, 2});
  EXPECT_TRUE(gradcheck([&] { return relu(r); }, {r}));
}

TEST(Elementwise, StridedInputs) {
  Var x = random_var({3, 4}, 9);
  Var xt(x.value().transpose(0, 1), true);
  Var y = add(xt, xt);
  EXPECT_EQ(y.shape(), Shape({4, 3}));
  EXPECT_DOUBLE_EQ(y.value().at({1, 2}), 2 * x.value().at({2, 1}));
}

TEST(Elementwise, RejectsMismatchedShapes) {
  Var a = random_var({2, 3}, 1), b = random_var({3, 2}, 2);
  EXPECT_THROW(add(a, b), Error);
  EXPECT_THROW(mul(a, b), Error);
  EXPECT_THROW(add_bias(a, random_var({2}, 3)), Error);
  EXPECT_THROW(add_n({}), Error);
}

TEST(Elementwise, FloatMatchesDouble) {
  Var xd = random_var({5, 7}, 11, -3, 3);
  Var xf(xd.value().to(DType::f32));
  EXPECT_TRUE(all_close(tanh(xf).value().to(DType::f64), tanh(xd).value(), 1e-6));
  EXPECT_TRUE(all_close(sigmoid(xf).value().to(DType::f64), sigmoid(xd).value(), 1e-6));
}

TEST(Elementwise, MinimumForwardAndGradient) {
  Var a = make({2, 3}, {1, -2, 3, 0.5, 0.25, -1}), b = make({2, 3}, {2, -3, 3, 0.1, 0.75, -1});
  EXPECT_TRUE(all_close(minimum(a, b).value(),
                        Tensor::from({2, 3}, {1, -3, 3, 0.1, 0.25, -1}, DType::f64), 0, 0));
  // The gradient goes to the smaller input, half to each on a tie (as torch.minimum).
  Var y = minimum(a, b);
  Tape::current().backward(y, Tensor::from({2, 3}, {1, 2, 4, 8, 16, 32}, DType::f64));
  EXPECT_TRUE(all_close(a.grad(), Tensor::from({2, 3}, {1, 0, 2, 0, 16, 16}, DType::f64), 0, 0));
  EXPECT_TRUE(all_close(b.grad(), Tensor::from({2, 3}, {0, 2, 2, 8, 0, 16}, DType::f64), 0, 0));
  // Away from the ties.
  Var c = random_var({3, 4}, 21), d = random_var({3, 4}, 22);
  EXPECT_TRUE(gradcheck([&] { return minimum(c, d); }, {c, d}));
  EXPECT_THROW(minimum(c, random_var({4, 3}, 23)), Error);
}

}  // namespace
}  // namespace heed
