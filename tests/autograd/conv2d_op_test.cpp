// conv2d (autograd/conv2d_op.h): forward against a direct loop, gradients in double.
#include "heed/autograd/conv2d_op.h"

#include <gtest/gtest.h>

#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

// y[n,o,i,j] = b[o] + sum_{c,p,q} w[o,c,p,q] x[n,c,i s - pad + p, j s - pad + q], the
// definition, one element at a time.
Tensor direct(const Tensor& x, const Tensor& w, const Tensor* b, std::int64_t s, std::int64_t pad) {
  const std::int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  const std::int64_t O = w.dim(0), KH = w.dim(2), KW = w.dim(3);
  const std::int64_t OH = (H + 2 * pad - KH) / s + 1, OW = (W + 2 * pad - KW) / s + 1;
  Tensor y = Tensor::zeros(Shape{N, O, OH, OW}, DType::f64);
  for (std::int64_t n = 0; n < N; ++n)
    for (std::int64_t o = 0; o < O; ++o)
      for (std::int64_t i = 0; i < OH; ++i)
        for (std::int64_t j = 0; j < OW; ++j) {
          double v = b ? b->at({o}) : 0.0;
          for (std::int64_t c = 0; c < C; ++c)
            for (std::int64_t p = 0; p < KH; ++p)
              for (std::int64_t q = 0; q < KW; ++q) {
                const std::int64_t r = i * s - pad + p, col = j * s - pad + q;
                if (r >= 0 && r < H && col >= 0 && col < W)
                  v += w.at({o, c, p, q}) * x.at({n, c, r, col});
              }
          y.set({n, o, i, j}, v);
        }
  return y;
}

TEST(Conv2d, ForwardMatchesTheDefinition) {
  Var x = random_var({2, 3, 7, 6}, 1), w = random_var({4, 3, 3, 2}, 2), b = random_var({4}, 3);
  // Stride 1 copies whole runs of a line (the padding on either side, or both: padding 3 is
  // wider than the filter); other strides go entry by entry.
  for (auto [stride, pad] : {std::pair{1, 0}, {1, 1}, {1, 3}, {2, 1}, {3, 2}}) {
    Tensor y = conv2d(x, w, b, {stride, pad}).value();
    EXPECT_TRUE(all_close(y, direct(x.value(), w.value(), &b.value(), stride, pad), 1e-12))
        << "stride " << stride << " padding " << pad;
  }
  EXPECT_TRUE(all_close(conv2d(x, w).value(), direct(x.value(), w.value(), nullptr, 1, 0), 1e-12));
  EXPECT_EQ(conv2d(x, w, b, {2, 1}).value().shape(), (Shape{2, 4, 4, 4}));
}

TEST(Conv2d, FloatMatchesDouble) {
  Var x = random_var({2, 3, 9, 8}, 10), w = random_var({4, 3, 3, 3}, 11), b = random_var({4}, 12);
  Var xf(x.value().to(DType::f32)), wf(w.value().to(DType::f32)), bf(b.value().to(DType::f32));
  EXPECT_TRUE(all_close(conv2d(xf, wf, bf, {2, 1}).value().to(DType::f64),
                        conv2d(x, w, b, {2, 1}).value(), 1e-5));
}

TEST(Conv2d, GradientCheck) {
  Var x = random_var({2, 2, 5, 6}, 4), w = random_var({3, 2, 3, 3}, 5), b = random_var({3}, 6);
  EXPECT_TRUE(gradcheck([&] { return conv2d(x, w, b, {2, 1}); }, {x, w, b}));
  EXPECT_TRUE(gradcheck([&] { return conv2d(x, w); }, {x, w}));
  EXPECT_TRUE(gradcheck([&] { return conv2d(x, w, b, {1, 1}); }, {x, w, b}));
  EXPECT_TRUE(gradcheck([&] { return conv2d(x, w, b, {1, 3}); }, {x, w, b}));
}

TEST(Conv2d, RefusesMismatchedShapes) {
  Var x = random_var({1, 2, 5, 5}, 7);
  EXPECT_THROW(conv2d(x, random_var({3, 1, 3, 3}, 8)), Error);        // channels
  EXPECT_THROW(conv2d(x, random_var({3, 2, 6, 3}, 8)), Error);        // kernel too tall
  EXPECT_THROW(conv2d(x, random_var({3, 2, 3, 3}, 8), random_var({2}, 9)), Error);  // bias
  EXPECT_THROW(conv2d(x, random_var({3, 2, 3, 3}, 8), Var(), {0, 0}), Error);      // stride
}

}  // namespace
}  // namespace heed
