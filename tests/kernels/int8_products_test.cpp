// int8 products (MatmulPrecision::int8): the quantisation of weights and activations
// (kernels/int8_quantize.h) and a frozen weight's int8 products (kernels/packed_weight.h),
// against fp32 within the bound derived from the row scales, on the CPU's own oneDNN path
// and, in a child process capped with ONEDNN_MAX_CPU_ISA=AVX2, on the AVX2 path.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "heed/kernels/gemm.h"
#include "heed/kernels/int8_quantize.h"
#include "heed/kernels/packed_weight.h"
#include "support/gradcheck.h"

namespace heed::kernels {
namespace {

using heed::testing::random_floats;

TEST(Int8Quantize, WeightRowsAreSymmetricWithinHalfAScale) {
  const std::int64_t rows = 5, cols = 37, ld = 40;
  std::vector<float> w = random_floats(static_cast<std::size_t>(rows * ld), 11);
  for (std::int64_t j = 0; j < cols; ++j) w[static_cast<std::size_t>(3 * ld + j)] = 0.0f;
  std::vector<std::int8_t> q(static_cast<std::size_t>(rows * cols));
  std::vector<float> s(static_cast<std::size_t>(rows));
  quantize_weight_rows(w.data(), rows, cols, ld, q.data(), s.data());
  for (std::int64_t i = 0; i < rows; ++i) {
    float m = 0;
    for (std::int64_t j = 0; j < cols; ++j) m = std::max(m, std::fabs(w[i * ld + j]));
    EXPECT_EQ(s[i], m / 127.0f) << i;
    int qmax = 0;
    for (std::int64_t j = 0; j < cols; ++j) {
      const int v = q[i * cols + j];
      qmax = std::max(qmax, std::abs(v));
      EXPECT_LE(std::fabs(w[i * ld + j] - s[i] * v), 0.5f * s[i] * (1 + 1e-5f)) << i << "," << j;
    }
    EXPECT_EQ(qmax, i == 3 ? 0 : 127) << i;  // the row's largest value is +-127
  }
  EXPECT_EQ(s[3], 0.0f);  // an all-zero row
}

TEST(Int8Quantize, ActivationRowsUseSevenBitsWithAnExactZero) {
  const std::int64_t rows = 4, cols = 29, ld = 31;
  std::vector<float> a = random_floats(static_cast<std::size_t>(rows * ld), 12);
  for (std::int64_t j = 0; j < cols; ++j) {
    a[static_cast<std::size_t>(1 * ld + j)] = std::fabs(a[static_cast<std::size_t>(ld + j)]);
    a[static_cast<std::size_t>(2 * ld + j)] = -std::fabs(a[static_cast<std::size_t>(2 * ld + j)]);
  }
  a[static_cast<std::size_t>(3 * ld + 5)] = 0.0f;
  std::vector<std::uint8_t> q(static_cast<std::size_t>(rows * cols));
  std::vector<float> s(static_cast<std::size_t>(rows));
  std::vector<std::int32_t> z(static_cast<std::size_t>(rows));
  quantize_activation_rows(a.data(), rows, cols, ld, q.data(), s.data(), z.data());
  EXPECT_EQ(z[1], 0);    // all >= 0: the zero point at the bottom
  EXPECT_EQ(z[2], 127);  // all <= 0: at the top
  EXPECT_EQ(q[3 * cols + 5], z[3]);  // 0 is exact
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j) {
      const int v = q[i * cols + j];
      ASSERT_LE(v, 127);
      EXPECT_LE(std::fabs(a[i * ld + j] - s[i] * (v - z[i])), 0.5f * s[i] * (1 + 1e-5f))
          << i << "," << j;
    }
}

// C = A B^T (+ bias) + beta C0 with B a block of a larger weight, in fp32 (double) and as the
// int8 product, and the bound the int8 product must keep.
struct Case {
  std::int64_t M, N, K, lda, ldb, ldc;
  bool bias;
  float beta;
};

struct Outcome {
  double worst_ratio = 0;  // max |int8 - fp32| / bound
  double worst_quantised = 0;  // max |int8 - the exact product of the quantised values|
  std::size_t products = 0;
};

Outcome run_case(const Case& c, std::uint64_t seed) {
  const std::int64_t rows = c.N + 3;
  std::vector<float> param = random_floats(static_cast<std::size_t>(rows * c.ldb), seed);
  std::vector<float> A = random_floats(static_cast<std::size_t>(c.M * c.lda), seed + 1);
  // Rows of A of both signs, one-sided ones and a constant one: the zero point at work.
  for (std::int64_t k = 0; k < c.K; ++k) {
    if (c.M > 1) A[static_cast<std::size_t>(c.lda + k)] = std::fabs(A[c.lda + k]) * 3;
    if (c.M > 2) A[static_cast<std::size_t>(2 * c.lda + k)] = 0.25f;
  }
  const std::vector<float> b = random_floats(static_cast<std::size_t>(c.N), seed + 2);
  const std::vector<float> C0 = random_floats(static_cast<std::size_t>(c.M * c.ldc), seed + 3);
  const float* W = param.data() + 2 * c.ldb + 1;  // rows 2.., columns 1..

  const PackedWeight packed(param.data(), param.size(), MatmulPrecision::int8);
  std::vector<float> C = C0;
  const GemmOptions options{MatmulPrecision::f32, &packed};
  if (c.bias) {
    EXPECT_TRUE(c.lda == c.K && c.ldb == c.K && c.ldc == c.N && c.beta == 0);
    affine_rows<float>(options, c.M, c.N, c.K, A.data(), W, b.data(), C.data());
  } else {
    gemm<float>(options, false, true, c.M, c.N, c.K, 1.0f, A.data(), c.lda, W, c.ldb, c.beta,
                C.data(), c.ldc);
  }

  // The same quantisation, by the test: the product's exact value over the quantised inputs.
  std::vector<std::int8_t> qw(static_cast<std::size_t>(c.N * c.K));
  std::vector<float> sw(static_cast<std::size_t>(c.N));
  quantize_weight_rows(W, c.N, c.K, c.ldb, qw.data(), sw.data());
  std::vector<std::uint8_t> qa(static_cast<std::size_t>(c.M * c.K));
  std::vector<float> sa(static_cast<std::size_t>(c.M));
  std::vector<std::int32_t> za(static_cast<std::size_t>(c.M));
  quantize_activation_rows(A.data(), c.M, c.K, c.lda, qa.data(), sa.data(), za.data());

  Outcome out;
  out.products = packed.products();
  for (std::int64_t i = 0; i < c.M; ++i)
    for (std::int64_t j = 0; j < c.N; ++j) {
      double exact = 0, quantised = 0, sum_a = 0, sum_w = 0;
      for (std::int64_t k = 0; k < c.K; ++k) {
        const double a = A[i * c.lda + k], w = W[j * c.ldb + k];
        const double wq = double(sw[j]) * qw[j * c.K + k];
        exact += a * w;
        quantised += double(sa[i]) * (qa[i * c.K + k] - za[i]) * wq;
        sum_a += std::fabs(a);
        sum_w += std::fabs(wq);
      }
      const double rest = (c.bias ? b[j] : 0.0) + c.beta * C0[i * c.ldc + j];
      const double got = C[i * c.ldc + j];
      // Each weight within s_w/2, each activation within s_a/2 (Int8Quantize above):
      // |a w - a^ w^| <= |a| |w - w^| + |w^| |a - a^|; plus fp32 rounding of the result.
      const double bound = 0.5 * sw[j] * sum_a + 0.5 * sa[i] * sum_w +
                           1e-6 * (std::fabs(exact) + std::fabs(rest) + 1);
      out.worst_ratio = std::max(out.worst_ratio, std::fabs(got - (exact + rest)) / bound);
      out.worst_quantised = std::max(out.worst_quantised, std::fabs(got - (quantised + rest)));
    }
  for (std::int64_t i = 0; i < c.M; ++i)  // C's padding beyond N is left alone
    for (std::int64_t j = c.N; j < c.ldc; ++j)
      EXPECT_EQ(C[i * c.ldc + j], C0[i * c.ldc + j]);
  return out;
}

TEST(Int8Products, MatchFp32WithinTheRowScaleBound) {
  const Case cases[] = {
      {37, 130, 70, 75, 80, 140, false, 0.0f},  // strided A, B and C
      {37, 130, 70, 75, 80, 140, false, 1.0f},  // C += A B^T
      {1, 17, 33, 33, 40, 17, false, 0.0f},     // one row, N not a multiple of 16, K odd
      {1, 17, 33, 40, 33, 20, false, 1.0f},
      {8, 100, 64, 64, 64, 100, true, 0.0f},    // y = x W^T + b (affine_rows)
      {3, 31, 129, 129, 129, 31, true, 0.0f},
      {64, 512, 256, 256, 256, 512, false, 1.0f},
  };
  std::uint64_t seed = 100;
  for (const Case& c : cases) {
    const Outcome o = run_case(c, seed += 10);
    SCOPED_TRACE(::testing::Message() << "M " << c.M << " N " << c.N << " K " << c.K << " beta "
                                      << c.beta << (c.bias ? " bias" : ""));
    ASSERT_EQ(o.products, 1u) << "oneDNN did not take the int8 product";
    EXPECT_LE(o.worst_ratio, 1.0);
    // Exactly the quantised values' product: integer sums, then fp32 scaling (relative 1e-6).
    EXPECT_LT(o.worst_quantised, 1e-5 * std::sqrt(double(c.K)));
  }
}

TEST(Int8Products, TheErrorIsThatOfEightBitsNotMore) {
  // Inputs uniform in [-1, 1], K = 256: the int8 product's error is far below the bound's worst
  // case (errors of both signs cancel) but not zero.
  const Case c{16, 64, 256, 256, 256, 64, false, 0.0f};
  const Outcome o = run_case(c, 7);
  EXPECT_LT(o.worst_ratio, 0.25);
  EXPECT_GT(o.worst_ratio, 1e-3);
}

TEST(Int8Products, KernelIsOneDnnsFastOne) {
  const std::string impl = PackedWeight::implementation(MatmulPrecision::int8, 4, 130, 70);
  RecordProperty("onednn_int8", impl);
  EXPECT_NE(impl, "none");
  const char* cap = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (cap && std::string(cap) == "AVX2") {
    EXPECT_EQ(impl.find("avx512"), std::string::npos) << impl;
  }
}

// The AVX2 path on any CPU: this binary's int8 tests again, with oneDNN capped at AVX2 (it
// reads ONEDNN_MAX_CPU_ISA once, before its first kernel, so it takes a process of its own).
TEST(Int8Products, PassOnOneDnnsAvx2PathToo) {
  if (std::getenv("ONEDNN_MAX_CPU_ISA")) GTEST_SKIP() << "already capped";
  const std::string self = std::filesystem::read_symlink("/proc/self/exe").string();
  if (self.find("/ld-linux") != std::string::npos)
    GTEST_SKIP() << "started through the dynamic loader: /proc/self/exe is " << self;
  const testing::CommandResult r = testing::run_shell(
      "ONEDNN_MAX_CPU_ISA=AVX2 '" + self + "' --gtest_filter='Int8Products.*:Int8Quantize.*' 2>&1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("[  PASSED  ] 5 tests"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace heed::kernels
