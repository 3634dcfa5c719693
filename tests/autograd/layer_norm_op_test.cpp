#include "heed/autograd/layer_norm_op.h"

#include <cmath>

#include <gtest/gtest.h>

#include "heed/base/error.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

TEST(LayerNorm, ForwardMatchesHandComputation) {
  // Row (1, 2, 3): mean 2, variance 2/3; row (5, 5, 5): variance 0, so y = beta.
  Var x(Tensor::from({2, 3}, {1, 2, 3, 5, 5, 5}, DType::f64));
  Var gamma(Tensor::from({3}, {1, 2, 3}, DType::f64)), beta(Tensor::from({3}, {0, 1, -1}, DType::f64));
  const double eps = 1e-5, r = 1 / std::sqrt(2.0 / 3.0 + eps);
  EXPECT_TRUE(all_close(layer_norm(x, gamma, beta, eps).value(),
                        Tensor::from({2, 3}, {-r, 1, 3 * r - 1, 0, 1, -1}, DType::f64), 1e-12));
  EXPECT_TRUE(all_close(layer_norm(x, Var(), Var(), eps).value(),
                        Tensor::from({2, 3}, {-r, 0, r, 0, 0, 0}, DType::f64), 1e-12));
}

TEST(LayerNorm, GradientCheck) {
  Var x = random_var({2, 3, 5}, 1, -2, 2);
  Var gamma = random_var({5}, 2), beta = random_var({5}, 3);
  EXPECT_TRUE(gradcheck([&] { return layer_norm(x, gamma, beta); }, {x, gamma, beta}));
  EXPECT_TRUE(gradcheck([&] { return layer_norm(x, Var(), Var()); }, {x}));
}

TEST(LayerNorm, FloatAgreesWithDouble) {
  Var x = random_var({4, 7}, 4), gamma = random_var({7}, 5), beta = random_var({7}, 6);
  Var xf(x.value().to(DType::f32)), gf(gamma.value().to(DType::f32)), bf(beta.value().to(DType::f32));
  EXPECT_TRUE(all_close(layer_norm(xf, gf, bf).value().to(DType::f64),
                        layer_norm(x, gamma, beta).value(), 1e-5));
}

TEST(LayerNorm, RejectsShapesThatDisagree) {
  Var x = random_var({2, 4}, 7);
  EXPECT_THROW(layer_norm(x, random_var({3}, 8), random_var({3}, 9)), Error);
  EXPECT_THROW(layer_norm(x, random_var({4}, 8), Var()), Error);
  EXPECT_THROW(layer_norm(x, Var(), Var(), 0.0), Error);
}

}  // namespace
}  // namespace heed
