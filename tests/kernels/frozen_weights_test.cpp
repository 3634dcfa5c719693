#include "heed/kernels/frozen_weights.h"

#include <omp.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "heed/base/error.h"
#include "heed/kernels/gemm.h"
#include "support/gradcheck.h"
#include "heed/kernels/onednn.h"

namespace heed::kernels {
namespace {

using heed::testing::random_floats;

// bfloat16 rounding (nearest even; tests/kernels/bf16_products_test.cpp checks it), as a float.
float bf16(float x) {
  std::uint16_t b;
  round_to_bf16(&x, 1, 1, 1, &b);
  return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16);
}

// A product with a weight block of a larger "parameter": W is N x K inside a buffer with row
// stride ldb, A is M x K with row stride lda, C is M x N with row stride ldc.
struct Problem {
  std::int64_t M = 37, N = 130, K = 70, lda = 75, ldb = 80, ldc = 140;
  std::vector<float> param = random_floats(static_cast<std::size_t>(150 * 80), 1);
  std::vector<float> A = random_floats(static_cast<std::size_t>(37 * 75), 2);
  const float* W() const { return param.data() + 5 * ldb + 3; }  // rows 5.., columns 3..
  std::vector<float> C0 = random_floats(static_cast<std::size_t>(37 * 140), 3);

  std::vector<float> run(float beta, std::int64_t rows) const {
    std::vector<float> C = C0;
    gemm<float>(false, true, rows, N, K, 1.0f, A.data(), lda, W(), ldb, beta, C.data(), ldc);
    return C;
  }
  FrozenWeights::Range range() const { return {param.data(), param.size()}; }
};

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(double(a[i]) - b[i]));
  return m;
}

TEST(FrozenWeights, Fp32ProductsMatchBlasWithStridesAndAccumulation) {
  Problem p;
  for (float beta : {0.0f, 1.0f}) {
    const std::vector<float> blas = p.run(beta, p.M);
    std::vector<float> frozen;
    {
      const FrozenWeights::Range r = p.range();
      FrozenWeights scope({&r, 1}, MatmulPrecision::f32);
      frozen = p.run(beta, p.M);
      ASSERT_EQ(frozen_weights_packed(), 1u);
      ASSERT_EQ(frozen_weights_products(), 1u) << "oneDNN did not take the product";
    }
    EXPECT_EQ(frozen_weights_packed(), 0u);  // freed with the last scope
    EXPECT_LT(max_abs_diff(blas, frozen), 2e-5 * p.K) << "beta " << beta;
    // Columns beyond N and rows' padding up to ldc are left alone.
    for (std::int64_t i = 0; i < p.M; ++i)
      for (std::int64_t j = p.N; j < p.ldc; ++j)
        ASSERT_EQ(frozen[i * p.ldc + j], p.C0[i * p.ldc + j]);
  }
}

TEST(FrozenWeights, AffineRowsAddTheBiasInTheProduct) {
  // y = x W^T + b with dense operands (nn.Linear's case), in fp32 and bf16, against the
  // broadcast-and-accumulate path taken without a scope.
  const std::int64_t rows = 19, out = 130, in = 70;
  const std::vector<float> W = random_floats(static_cast<std::size_t>(out * in), 4);
  const std::vector<float> x = random_floats(static_cast<std::size_t>(rows * in), 5);
  const std::vector<float> b = random_floats(static_cast<std::size_t>(out), 6);
  std::vector<float> plain(static_cast<std::size_t>(rows * out));
  affine_rows<float>(rows, out, in, x.data(), W.data(), b.data(), plain.data());
  for (const MatmulPrecision precision : {MatmulPrecision::f32, MatmulPrecision::bf16}) {
    std::vector<float> frozen(plain.size(), 1e30f);
    const FrozenWeights::Range r{W.data(), W.size()};
    FrozenWeights scope({&r, 1}, precision);
    affine_rows<float>(rows, out, in, x.data(), W.data(), b.data(), frozen.data());
    if (precision == MatmulPrecision::bf16 && frozen_weights_products() == 0) continue;
    ASSERT_EQ(frozen_weights_products(), 1u) << "oneDNN did not take the product";
    // bf16 rounds x and W (relative 2^-8 each); fp32 differs in summation order only.
    const double tol = precision == MatmulPrecision::f32 ? 2e-5 * in : 2e-2 * in;
    EXPECT_LT(max_abs_diff(plain, frozen), tol) << matmul_precision_name(precision);
  }
}

TEST(FrozenWeights, Bf16RoundsInputsAndWeightsAndSumsInFp32) {
  Problem p;
  std::vector<float> frozen;
  {
    const FrozenWeights::Range r = p.range();
    FrozenWeights scope({&r, 1}, MatmulPrecision::bf16);
    frozen = p.run(0.0f, p.M);
    if (frozen_weights_products() == 0) GTEST_SKIP() << "oneDNN has no bf16 kernel on this CPU";
  }
  double vs_exact = 0, vs_fp32 = 0;
  for (std::int64_t i = 0; i < p.M; ++i)
    for (std::int64_t j = 0; j < p.N; ++j) {
      double rounded = 0, exact = 0;
      for (std::int64_t k = 0; k < p.K; ++k) {
        const float a = p.A[i * p.lda + k], w = p.W()[j * p.ldb + k];
        rounded += double(bf16(a)) * bf16(w);
        exact += double(a) * w;
      }
      const double got = frozen[i * p.ldc + j];
      vs_exact = std::max(vs_exact, std::fabs(got - rounded));
      vs_fp32 = std::max(vs_fp32, std::fabs(got - exact));
    }
  EXPECT_LT(vs_exact, 1e-4) << "not the fp32 sum of bf16-rounded products";
  EXPECT_GT(vs_fp32, 1e-3) << "the inputs were not rounded to bf16";
}

TEST(FrozenWeights, ProductsOutsideTheRangesStayWithBlas) {
  Problem p;
  const std::vector<float> blas = p.run(0.0f, p.M);
  std::vector<float> other(16);
  const FrozenWeights::Range r{other.data(), other.size()};
  FrozenWeights scope({&r, 1}, MatmulPrecision::f32);
  EXPECT_EQ(p.run(0.0f, p.M), blas);  // bit for bit: the same BLAS call
  EXPECT_EQ(frozen_weights_packed(), 0u);
  EXPECT_EQ(frozen_weights_products(), 0u);
}

TEST(FrozenWeights, NestedScopesShareThePacksAndMustAgreeOnPrecision) {
  Problem p;
  const FrozenWeights::Range r = p.range();
  FrozenWeights outer({&r, 1}, MatmulPrecision::f32);
  {
    FrozenWeights inner({&r, 1}, MatmulPrecision::f32);
    p.run(0.0f, p.M);
    EXPECT_EQ(frozen_weights_packed(), 1u);
  }
  EXPECT_EQ(frozen_weights_packed(), 1u);  // the outer scope keeps them
  EXPECT_THROW(FrozenWeights({&r, 1}, MatmulPrecision::bf16), Error);
  EXPECT_EQ(frozen_weights_packed(), 1u);
}

TEST(FrozenWeights, ThreadsShareOnePackAtAnyRowCount) {
  Problem p;
  const std::vector<float> blas = p.run(0.0f, p.M);
  const FrozenWeights::Range r = p.range();
  FrozenWeights scope({&r, 1}, MatmulPrecision::f32);
  std::vector<std::vector<float>> out(8);
#pragma omp parallel for num_threads(2) schedule(static, 1)
  for (int i = 0; i < 8; ++i) out[static_cast<std::size_t>(i)] = p.run(0.0f, 1 + 4 * i);
  EXPECT_EQ(frozen_weights_packed(), 1u);
  EXPECT_EQ(frozen_weights_products(), 8u);
  for (int i = 0; i < 8; ++i) {
    const std::int64_t rows = 1 + 4 * i;
    for (std::int64_t a = 0; a < rows; ++a)
      for (std::int64_t j = 0; j < p.N; ++j)
        ASSERT_NEAR(out[static_cast<std::size_t>(i)][a * p.ldc + j], blas[a * p.ldc + j], 2e-5 * p.K);
  }
}

TEST(FrozenWeights, PrecisionNames) {
  EXPECT_EQ(parse_matmul_precision("fp32"), MatmulPrecision::f32);
  EXPECT_EQ(parse_matmul_precision("bf16"), MatmulPrecision::bf16);
  EXPECT_EQ(matmul_precision_name(MatmulPrecision::bf16), "bf16");
  EXPECT_THROW(parse_matmul_precision("fp16"), Error);
}

}  // namespace
}  // namespace heed::kernels
