// clip_grad_norm against torch.nn.utils.clip_grad_norm_ (tests/golden/clip_grad_norm).
#include "heed/train/clip.h"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "support/golden.h"

namespace heed {
namespace {

std::vector<Var> params_with_golden_grads(const SafeTensorsFile& g, DType dtype) {
  std::vector<Var> params;
  for (const char* n : {"p0", "p1"}) {
    const Tensor& grad = g.get(std::string("in.grad.") + n);
    Var p(Tensor::zeros(grad.shape(), dtype), true);
    p.grad_buffer().copy_from(grad);
    params.push_back(p);
  }
  return params;
}

TEST(ClipGradNorm, MatchesTorchWhenClippingAndWhenNot) {
  const SafeTensorsFile g = testing::load_golden("clip_grad_norm");
  for (DType dtype : {DType::f64, DType::f32}) {
    const double tol = dtype == DType::f64 ? 1e-12 : 1e-6;
    for (const auto& [tag, max_norm] : {std::pair{"clip", 0.5}, std::pair{"noclip", 100.0}}) {
      SCOPED_TRACE(tag);
      auto params = params_with_golden_grads(g, dtype);
      const double norm = clip_grad_norm(params, max_norm);
      const std::string prefix = std::string("out.") + tag + ".";
      EXPECT_NEAR(norm, g.get(prefix + "total_norm").item(), tol * (1 + norm));
      testing::expect_close_to_golden(params[0].grad(), g.get(prefix + "grad.p0"), "p0", tol);
      testing::expect_close_to_golden(params[1].grad(), g.get(prefix + "grad.p1"), "p1", tol);
    }
  }
}

TEST(ClipGradNorm, InfinityNormAndParametersWithoutGradient) {
  Var a(Tensor::zeros({3}, DType::f64), true);
  Var b(Tensor::zeros({2}, DType::f64), true);  // no gradient: ignored
  a.grad_buffer().copy_from(Tensor::from({3}, {1, -4, 2}, DType::f64));
  EXPECT_EQ(grad_norm({a, b}, kInfNorm), 4.0);
  const double norm = clip_grad_norm({a, b}, 2.0, kInfNorm);
  EXPECT_EQ(norm, 4.0);
  const double coef = 2.0 / (4.0 + 1e-6);
  EXPECT_EQ(a.grad().to_vector(), (std::vector<double>{coef, -4 * coef, 2 * coef}));
  EXPECT_FALSE(b.has_grad());
  EXPECT_EQ(grad_norm({b}), 0.0);
  EXPECT_THROW(grad_norm({a}, 1.0), Error);
}

TEST(ClipGradNorm, NonFiniteNorm) {
  Var a(Tensor::zeros({2}, DType::f64), true);
  a.grad_buffer().copy_from(
      Tensor::from({2}, {1.0, std::numeric_limits<double>::infinity()}, DType::f64));
  EXPECT_THROW(clip_grad_norm({a}, 1.0, 2.0, /*error_if_nonfinite=*/true), Error);
  EXPECT_TRUE(std::isinf(clip_grad_norm({a}, 1.0)));  // torch: scaled by 0 -> 0 and NaN
  EXPECT_EQ(a.grad().at({0}), 0.0);
}

TEST(ClipGradNorm, LargeGradientsUseTheParallelReduction) {
  const std::int64_t n = std::int64_t{1} << 17;
  Var a(Tensor::zeros({n}, DType::f32), true);
  a.grad_buffer().fill(0.5);
  const double norm = clip_grad_norm({a}, 1.0);
  EXPECT_NEAR(norm, 0.5 * std::sqrt(static_cast<double>(n)), 1e-9);
  EXPECT_NEAR(grad_norm({a}), 1.0, 1e-5);
}

TEST(ClipGradNormEach, ClipsEachGradientOnItsOwn) {
  Var a(Tensor::zeros({2}, DType::f64), true);
  Var b(Tensor::zeros({2}, DType::f64), true);
  Var c(Tensor::zeros({1}, DType::f64), true);  // no gradient: ignored
  a.grad_buffer().copy_from(Tensor::from({2}, {3, 4}, DType::f64));   // norm 5: clipped to 2
  b.grad_buffer().copy_from(Tensor::from({2}, {1, -1}, DType::f64));  // norm 1.41: kept
  EXPECT_EQ(clip_grad_norm_each({a, b, c}, 2.0), 5.0);
  const double coef = 2.0 / (5.0 + 1e-6);
  EXPECT_EQ(a.grad().to_vector(), (std::vector<double>{3 * coef, 4 * coef}));
  EXPECT_EQ(b.grad().to_vector(), (std::vector<double>{1, -1}));
  EXPECT_FALSE(c.has_grad());
  // The global clip of the same gradients scales both by 2 / sqrt(27).
  b.grad_buffer().copy_from(Tensor::from({2}, {1, -1}, DType::f64));
  a.grad_buffer().copy_from(Tensor::from({2}, {3, 4}, DType::f64));
  clip_grad_norm({a, b}, 2.0);
  EXPECT_NEAR(b.grad().at({0}), 2.0 / std::sqrt(27.0), 1e-6);
}

TEST(ClipGradNormEach, NonFiniteNormIsReturned) {
  Var a(Tensor::zeros({2}, DType::f64), true);
  a.grad_buffer().copy_from(
      Tensor::from({2}, {1.0, std::numeric_limits<double>::quiet_NaN()}, DType::f64));
  EXPECT_TRUE(std::isnan(clip_grad_norm_each({a}, 1.0)));
}

}  // namespace
}  // namespace heed
