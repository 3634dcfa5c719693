#include "heed/kernels/bf16_products.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <dnnl.h>
#include <gtest/gtest.h>
#include "support/bf16.h"

#include "heed/base/error.h"
#include "heed/kernels/gemm.h"
#include "support/gradcheck.h"
#include "heed/kernels/onednn.h"

namespace heed::kernels {
namespace {

using heed::testing::random_floats;

std::uint16_t bits(float x) {
  std::uint16_t out;
  round_to_bf16(&x, 1, 1, 1, &out);
  return out;
}

float widen(std::uint16_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b) << 16); }

TEST(RoundToBf16, NearestEvenInfAndNan) {
  EXPECT_EQ(bits(1.0f), 0x3f80);
  EXPECT_EQ(bits(1.0f + 0x1p-8f), 0x3f80);      // halfway, 1.0 is even
  EXPECT_EQ(bits(1.0f + 3 * 0x1p-8f), 0x3f82);  // halfway, 1 + 2^-6 is even
  EXPECT_EQ(bits(1.0f + 0x1p-8f + 0x1p-20f), 0x3f81);  // above halfway
  EXPECT_EQ(bits(-2.0f), 0xc000);
  EXPECT_EQ(bits(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(bits(std::numeric_limits<float>::max()), 0x7f80);  // rounds up to infinity
  EXPECT_TRUE(std::isnan(widen(bits(std::numeric_limits<float>::quiet_NaN()))));
  // A signalling NaN whose payload sits in the low bits must not become infinity.
  EXPECT_TRUE(std::isnan(widen(bits(std::bit_cast<float>(0x7f800001u)))));
  // Strided rows to a dense block.
  const std::vector<float> src = {1, 2, 99, 3, 4, 99};
  std::vector<std::uint16_t> dst(4);
  round_to_bf16(src.data(), 2, 2, 3, dst.data());
  EXPECT_EQ(widen(dst[2]), 3.0f);
  EXPECT_EQ(widen(dst[3]), 4.0f);
}

float rounded(float x) { return widen(bits(x)); }

// Every transpose combination, strided operands and output, beta 0 and 1: the fp32 sum of
// the bf16-rounded products.
TEST(Bf16Products, EveryLayoutSumsRoundedProducts) {
  HEED_SKIP_WITHOUT_BF16();
  const std::int64_t M = 19, N = 23, K = 41, pad = 3;
  require_bf16_products();
  const GemmOptions bf16{MatmulPrecision::bf16};
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (float beta : {0.0f, 1.0f}) {
        const std::int64_t a_rows = ta ? K : M, a_cols = ta ? M : K;
        const std::int64_t b_rows = tb ? N : K, b_cols = tb ? K : N;
        const std::int64_t lda = a_cols + pad, ldb = b_cols + pad, ldc = N + pad;
        const auto A = random_floats(static_cast<std::size_t>(a_rows * lda), 1);
        const auto B = random_floats(static_cast<std::size_t>(b_rows * ldb), 2);
        const auto C0 = random_floats(static_cast<std::size_t>(M * ldc), 3);
        std::vector<float> C = C0;
        const std::size_t before = bf16_products_run_on_this_thread();
        gemm<float>(bf16, ta, tb, M, N, K, 1.0f, A.data(), lda, B.data(), ldb, beta, C.data(), ldc);
        EXPECT_EQ(bf16_products_run_on_this_thread(), before + 1);
        double worst = 0, vs_fp32 = 0;
        for (std::int64_t i = 0; i < M; ++i)
          for (std::int64_t j = 0; j < N; ++j) {
            double want = beta * C0[i * ldc + j], exact = want;
            for (std::int64_t k = 0; k < K; ++k) {
              const float a = ta ? A[k * lda + i] : A[i * lda + k];
              const float b = tb ? B[j * ldb + k] : B[k * ldb + j];
              want += double(rounded(a)) * rounded(b);
              exact += double(a) * b;
            }
            worst = std::max(worst, std::fabs(C[i * ldc + j] - want));
            vs_fp32 = std::max(vs_fp32, std::fabs(C[i * ldc + j] - exact));
          }
        EXPECT_LT(worst, 1e-4) << "ta " << ta << " tb " << tb << " beta " << beta;
        EXPECT_GT(vs_fp32, 1e-3) << "inputs not rounded; ta " << ta << " tb " << tb;
        for (std::int64_t i = 0; i < M; ++i)  // the padding of C is untouched
          for (std::int64_t j = N; j < ldc; ++j) ASSERT_EQ(C[i * ldc + j], C0[i * ldc + j]);
      }
}

TEST(Bf16Products, OnlyWhenAskedAndNeverForScaledProducts) {
  HEED_SKIP_WITHOUT_BF16();
  const std::int64_t M = 8, N = 9, K = 10;
  const auto A = random_floats(M * K, 4), B = random_floats(K * N, 5);
  std::vector<float> fp32(M * N), sgemm(M * N), bf16(M * N), scaled_fp32(M * N), scaled_bf16(M * N);
  const std::size_t before = bf16_products_run_on_this_thread();
  // The plain path: fp32 options (or none) are exactly oneDNN's sgemm, bit for bit.
  gemm<float>({MatmulPrecision::f32}, false, false, M, N, K, 1.0f, A.data(), K, B.data(), N, 0.0f,
              fp32.data(), N);
  ASSERT_EQ(dnnl_sgemm('N', 'N', M, N, K, 1.0f, A.data(), K, B.data(), N, 0.0f, sgemm.data(), N),
            dnnl_success);
  EXPECT_EQ(fp32, sgemm);
  EXPECT_EQ(bf16_products_run_on_this_thread(), before);  // no bf16 product ran
  gemm<float>({MatmulPrecision::bf16}, false, false, M, N, K, 1.0f, A.data(), K, B.data(), N, 0.0f,
              bf16.data(), N);
  EXPECT_EQ(bf16_products_run_on_this_thread(), before + 1);
  EXPECT_NE(bf16, fp32);  // rounded when asked
  // alpha != 1 stays fp32 even when bf16 is asked for.
  gemm<float>({}, false, false, M, N, K, 0.5f, A.data(), K, B.data(), N, 0.0f, scaled_fp32.data(),
              N);
  gemm<float>({MatmulPrecision::bf16}, false, false, M, N, K, 0.5f, A.data(), K, B.data(), N, 0.0f,
              scaled_bf16.data(), N);
  EXPECT_EQ(scaled_bf16, scaled_fp32);
  EXPECT_EQ(bf16_products_run_on_this_thread(), before + 1);
}

TEST(Bf16Products, APrecisionOnOneThreadLeavesOthersAlone) {
  HEED_SKIP_WITHOUT_BF16();
  // The precision is a value of each call: threads multiplying at once in fp32 and bf16 each
  // get what they asked for (no process-wide mode to leak between them).
  const std::int64_t M = 16, N = 16, K = 32;
  const auto A = random_floats(M * K, 6), B = random_floats(K * N, 7);
  std::vector<float> fp32(M * N), bf16(M * N);
  gemm<float>({}, false, false, M, N, K, 1.0f, A.data(), K, B.data(), N, 0.0f, fp32.data(), N);
  gemm<float>({MatmulPrecision::bf16}, false, false, M, N, K, 1.0f, A.data(), K, B.data(), N, 0.0f,
              bf16.data(), N);
  std::vector<std::vector<float>> out(8, std::vector<float>(M * N));
#pragma omp parallel for num_threads(2) schedule(static, 1)
  for (int i = 0; i < 8; ++i)
    gemm<float>({i % 2 ? MatmulPrecision::bf16 : MatmulPrecision::f32}, false, false, M, N, K, 1.0f,
                A.data(), K, B.data(), N, 0.0f, out[static_cast<std::size_t>(i)].data(), N);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(out[static_cast<std::size_t>(i)], i % 2 ? bf16 : fp32) << i;
}

// A weight scope (a training step's promise that the parameters hold still): a product whose
// operand lies inside a listed region rounds it once and reuses the copy, bit for bit the
// same sums as without a scope; an operand outside the regions is rounded every time, even
// at an address seen before; a new scope rounds the weights again, so an update between
// steps is seen.
TEST(Bf16Products, AWeightScopeRoundsEachWeightOncePerScope) {
  HEED_SKIP_WITHOUT_BF16();
  const std::int64_t M = 6, N = 20, K = 33, ldw = K + 5;
  // (N, K) at ldw, and one float more: the region the scope is told of ends before it.
  const std::size_t n_w = static_cast<std::size_t>(N * ldw);
  std::vector<float> W = random_floats(n_w + 1, 8);
  std::vector<float> x = random_floats(static_cast<std::size_t>(M * K), 9);
  const std::vector<float> x2 = random_floats(static_cast<std::size_t>(M * K), 10);
  const GemmOptions bf16{MatmulPrecision::bf16};
  auto product = [&](const std::vector<float>& a, const float* w, std::int64_t ld) {
    std::vector<float> y(static_cast<std::size_t>(M * N));
    gemm<float>(bf16, false, true, M, N, K, 1.0f, a.data(), K, w, ld, 0.0f, y.data(), N);
    return y;
  };
  const std::vector<float> plain = product(x, W.data(), ldw), plain2 = product(x2, W.data(), ldw);
  const Bf16WeightCopyCounts c0 = bf16_weight_copies_on_this_thread();
  {
    Bf16WeightScope scope({{W.data(), n_w}});
    EXPECT_EQ(product(x, W.data(), ldw), plain);
    EXPECT_EQ(product(x, W.data(), ldw), plain);
    // x's storage now holds x2: the activation is rounded again, not taken from a copy.
    std::vector<float> same_storage = x;
    EXPECT_EQ(product(same_storage, W.data(), ldw), plain);
    std::copy(x2.begin(), x2.end(), same_storage.begin());
    EXPECT_EQ(product(same_storage, W.data(), ldw), plain2);
    const Bf16WeightCopyCounts c1 = bf16_weight_copies_on_this_thread();
    EXPECT_EQ(c1.made - c0.made, 1u);
    EXPECT_EQ(c1.reused - c0.reused, 3u);
    // Reaching one float past the region: not a weight of the scope.
    std::vector<float> wide(static_cast<std::size_t>(N * (ldw + 1)));
    Bf16WeightScope* nested = nullptr;
    EXPECT_THROW(nested = new Bf16WeightScope({{wide.data(), wide.size()}}), Error);
    delete nested;
    product(x, W.data() + (ldw - K) + 1, ldw);  // its last row ends one float past the region
    EXPECT_EQ(bf16_weight_copies_on_this_thread().made, c1.made);
    EXPECT_EQ(bf16_weight_copies_on_this_thread().reused, c1.reused);
  }
  // The update between two steps.
  for (float& w : W) w *= -2.0f;
  const std::vector<float> updated = product(x, W.data(), ldw);
  EXPECT_NE(updated, plain);
  {
    Bf16WeightScope scope({{W.data(), n_w}});
    EXPECT_EQ(product(x, W.data(), ldw), updated);
  }
  EXPECT_EQ(bf16_weight_copies_on_this_thread().made - c0.made, 2u);
}

}  // namespace
}  // namespace heed::kernels
