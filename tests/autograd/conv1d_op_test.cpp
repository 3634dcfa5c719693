// conv1d_same (autograd/conv1d_op.h): forward against the definition, gradients in double.
#include "heed/autograd/conv1d_op.h"

#include <gtest/gtest.h>

#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

// y[b, j, c] = sum_i w[c, 0, i] x[b, j + i - (r - 1) / 2], zero outside, one element at a time.
Tensor direct(const Tensor& x, const Tensor& w) {
  const std::int64_t B = x.dim(0), m = x.dim(1), k = w.dim(0), r = w.dim(2), pad = (r - 1) / 2;
  Tensor y = Tensor::zeros(Shape{B, m, k}, DType::f64);
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t j = 0; j < m; ++j)
      for (std::int64_t c = 0; c < k; ++c) {
        double v = 0;
        for (std::int64_t i = 0; i < r; ++i) {
          const std::int64_t at = j + i - pad;
          if (at >= 0 && at < m) v += w.at({c, 0, i}) * x.at({b, at});
        }
        y.set({b, j, c}, v);
      }
  return y;
}

TEST(Conv1dSame, ForwardMatchesTheDefinition) {
  Var x = random_var({3, 6}, 1);
  for (std::int64_t r : {1, 3, 5, 13}) {  // 13: wider than the sequence
    Var w = random_var({4, 1, r}, 2);
    Tensor y = conv1d_same(x, w).value();
    EXPECT_EQ(y.shape(), (Shape{3, 6, 4}));
    EXPECT_TRUE(all_close(y, direct(x.value(), w.value()), 1e-14)) << "width " << r;
  }
}

TEST(Conv1dSame, OneHotInputGivesTheFilterReversedAroundIt) {
  // x = e_2 over 5 positions, one filter (1, 2, 3): y_j = w[2 - j + 1], so y = (0, 3, 2, 1, 0).
  Var x(Tensor::from({1, 5}, {0, 0, 1, 0, 0}, DType::f64));
  Var w(Tensor::from({1, 1, 3}, {1, 2, 3}, DType::f64));
  EXPECT_TRUE(all_close(conv1d_same(x, w).value(),
                        Tensor::from({1, 5, 1}, {0, 3, 2, 1, 0}, DType::f64), 0, 0));
}

TEST(Conv1dSame, FloatMatchesDouble) {
  Var x = random_var({2, 9}, 3), w = random_var({5, 1, 7}, 4);
  Var xf(x.value().to(DType::f32)), wf(w.value().to(DType::f32));
  EXPECT_TRUE(all_close(conv1d_same(xf, wf).value().to(DType::f64), conv1d_same(x, w).value(),
                        1e-5));
}

TEST(Conv1dSame, GradientCheck) {
  Var x = random_var({2, 7}, 5);
  for (std::int64_t r : {1, 3, 9}) {
    Var w = random_var({3, 1, r}, 6);
    EXPECT_TRUE(gradcheck([&] { return conv1d_same(x, w); }, {x, w})) << "width " << r;
  }
}

TEST(Conv1dSame, RejectsEvenWidthsAndBadShapes) {
  Var x = random_var({2, 7}, 7);
  EXPECT_THROW(conv1d_same(x, random_var({3, 1, 4}, 8)), Error);   // even: no same length
  EXPECT_THROW(conv1d_same(x, random_var({3, 2, 3}, 9)), Error);   // two input channels
  EXPECT_THROW(conv1d_same(random_var({2, 7, 1}, 10), random_var({3, 1, 3}, 11)), Error);
}

}  // namespace
}  // namespace heed
