#include "heed/kernels/packed_weight.h"

#include <omp.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "heed/base/error.h"
#include "heed/kernels/bf16_products.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/onednn.h"
#include "support/gradcheck.h"

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

  // The product through kernels::gemm with the given options (a handle or none).
  std::vector<float> run(float beta, std::int64_t rows, const GemmOptions& options = {}) const {
    std::vector<float> C = C0;
    gemm<float>(options, false, true, rows, N, K, 1.0f, A.data(), lda, W(), ldb, beta, C.data(),
                ldc);
    return C;
  }
  PackedWeight pack(MatmulPrecision precision) const {
    return PackedWeight(param.data(), param.size(), precision);
  }
};

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) {
  double m = 0;
  for (std::size_t i = 0; i < a.size(); ++i) m = std::max(m, std::fabs(double(a[i]) - b[i]));
  return m;
}

TEST(PackedWeight, Fp32ProductsMatchBlasWithStridesAndAccumulation) {
  Problem p;
  for (float beta : {0.0f, 1.0f}) {
    const std::vector<float> blas = p.run(beta, p.M);
    const PackedWeight w(p.param.data(), p.param.size(), MatmulPrecision::f32);
    EXPECT_EQ(w.packed(), 0u);  // packed on first use
    const std::vector<float> frozen = p.run(beta, p.M, {MatmulPrecision::f32, &w});
    ASSERT_EQ(w.packed(), 1u);
    ASSERT_EQ(w.products(), 1u) << "oneDNN did not take the product";
    // The documented agreement: the same products, summed in another order.
    EXPECT_LT(max_abs_diff(blas, frozen), 2e-5 * p.K) << "beta " << beta;
    // Columns beyond N and rows' padding up to ldc are left alone.
    for (std::int64_t i = 0; i < p.M; ++i)
      for (std::int64_t j = p.N; j < p.ldc; ++j)
        ASSERT_EQ(frozen[i * p.ldc + j], p.C0[i * p.ldc + j]);
  }
}

TEST(PackedWeight, AffineRowsAddTheBiasInTheProduct) {
  // y = x W^T + b with dense operands (nn.Linear's case), in fp32 and bf16, against the
  // broadcast-and-accumulate path taken without a handle.
  const std::int64_t rows = 19, out = 130, in = 70;
  const std::vector<float> W = random_floats(static_cast<std::size_t>(out * in), 4);
  const std::vector<float> x = random_floats(static_cast<std::size_t>(rows * in), 5);
  const std::vector<float> b = random_floats(static_cast<std::size_t>(out), 6);
  std::vector<float> plain(static_cast<std::size_t>(rows * out));
  affine_rows<float>({}, rows, out, in, x.data(), W.data(), b.data(), plain.data());
  for (const MatmulPrecision precision : {MatmulPrecision::f32, MatmulPrecision::bf16}) {
    std::vector<float> frozen(plain.size(), 1e30f);
    const PackedWeight w(W.data(), W.size(), precision);
    affine_rows<float>({MatmulPrecision::f32, &w}, rows, out, in, x.data(), W.data(), b.data(),
                       frozen.data());
    if (precision == MatmulPrecision::bf16 && w.products() == 0) continue;
    ASSERT_EQ(w.products(), 1u) << "oneDNN did not take the product";
    // bf16 rounds x and W (relative 2^-8 each); fp32 differs in summation order only.
    const double tol = precision == MatmulPrecision::f32 ? 2e-5 * in : 2e-2 * in;
    EXPECT_LT(max_abs_diff(plain, frozen), tol) << matmul_precision_name(precision);
  }
}

TEST(PackedWeight, Bf16RoundsInputsAndWeightsAndSumsInFp32) {
  Problem p;
  const PackedWeight w = p.pack(MatmulPrecision::bf16);
  // The weight's precision rules its products, whatever the options' precision says.
  const std::vector<float> frozen = p.run(0.0f, p.M, {MatmulPrecision::f32, &w});
  if (w.products() == 0) GTEST_SKIP() << "oneDNN has no bf16 kernel on this CPU";
  double vs_exact = 0, vs_fp32 = 0;
  for (std::int64_t i = 0; i < p.M; ++i)
    for (std::int64_t j = 0; j < p.N; ++j) {
      double rounded = 0, exact = 0;
      for (std::int64_t k = 0; k < p.K; ++k) {
        const float a = p.A[i * p.lda + k], wk = p.W()[j * p.ldb + k];
        rounded += double(bf16(a)) * bf16(wk);
        exact += double(a) * wk;
      }
      const double got = frozen[i * p.ldc + j];
      vs_exact = std::max(vs_exact, std::fabs(got - rounded));
      vs_fp32 = std::max(vs_fp32, std::fabs(got - exact));
    }
  EXPECT_LT(vs_exact, 1e-4) << "not the fp32 sum of bf16-rounded products";
  EXPECT_GT(vs_fp32, 1e-3) << "the inputs were not rounded to bf16";
}

TEST(PackedWeight, WithoutAHandleTheProductIsPlainSgemm) {
  // A packed weight exists, but a product not handed it runs the plain path, bit for bit
  // (no lookup finds the weight by its address).
  Problem p;
  const std::vector<float> blas = p.run(0.0f, p.M);
  const PackedWeight w = p.pack(MatmulPrecision::bf16);
  const std::size_t bf16_before = bf16_products_run_on_this_thread();
  EXPECT_EQ(p.run(0.0f, p.M), blas);
  EXPECT_EQ(p.run(0.0f, p.M, {MatmulPrecision::f32, nullptr}), blas);
  EXPECT_EQ(w.packed(), 0u);
  EXPECT_EQ(w.products(), 0u);
  EXPECT_EQ(bf16_products_run_on_this_thread(), bf16_before);
}

TEST(PackedWeight, ProductsItCannotTakeFallBackToThePlainPath) {
  // alpha != 1, transposed A, beta other than 0 and 1: not a frozen-weight product, so it
  // runs as it would without the handle.
  Problem p;
  const PackedWeight w = p.pack(MatmulPrecision::f32);
  std::vector<float> with = p.C0, without = p.C0;
  gemm<float>({MatmulPrecision::f32, &w}, false, true, p.M, p.N, p.K, 1.0f, p.A.data(), p.lda,
              p.W(), p.ldb, 0.5f, with.data(), p.ldc);
  gemm<float>({}, false, true, p.M, p.N, p.K, 1.0f, p.A.data(), p.lda, p.W(), p.ldb, 0.5f,
              without.data(), p.ldc);
  EXPECT_EQ(with, without);
  EXPECT_EQ(w.products(), 0u);
}

TEST(PackedWeight, ABlockOutsideTheWeightIsAnError) {
  Problem p;
  const std::vector<float> other(16);
  const PackedWeight w(other.data(), other.size(), MatmulPrecision::f32);
  EXPECT_THROW(p.run(0.0f, p.M, {MatmulPrecision::f32, &w}), Error);
}

TEST(PackedWeight, ThreadsShareOnePackAtAnyRowCount) {
  Problem p;
  const std::vector<float> blas = p.run(0.0f, p.M);
  const PackedWeight w = p.pack(MatmulPrecision::f32);
  std::vector<std::vector<float>> out(8);
#pragma omp parallel for num_threads(2) schedule(static, 1)
  for (int i = 0; i < 8; ++i)
    out[static_cast<std::size_t>(i)] = p.run(0.0f, 1 + 4 * i, {MatmulPrecision::f32, &w});
  EXPECT_EQ(w.packed(), 1u);
  EXPECT_EQ(w.products(), 8u);
  for (int i = 0; i < 8; ++i) {
    const std::int64_t rows = 1 + 4 * i;
    for (std::int64_t a = 0; a < rows; ++a)
      for (std::int64_t j = 0; j < p.N; ++j)
        ASSERT_NEAR(out[static_cast<std::size_t>(i)][a * p.ldc + j], blas[a * p.ldc + j],
                    2e-5 * p.K);
  }
}

TEST(MatmulPrecision, Names) {
  EXPECT_EQ(parse_matmul_precision("fp32"), MatmulPrecision::f32);
  EXPECT_EQ(parse_matmul_precision("bf16"), MatmulPrecision::bf16);
  EXPECT_EQ(matmul_precision_name(MatmulPrecision::bf16), "bf16");
  EXPECT_THROW(parse_matmul_precision("fp16"), Error);
}

}  // namespace
}  // namespace heed::kernels
