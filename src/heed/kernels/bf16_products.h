#pragma once
// bf16 products for mixed-precision training.
//
// While a Bf16Products scope is open (anywhere in the process: training's worker threads
// multiply too), every float GEMM kernels::gemm does that no frozen weights take
// (frozen_weights.h) rounds op(A) and op(B) to bfloat16 and sums the products in fp32
// through oneDNN's matmul; C stays fp32. The weights, their gradients, the optimiser and
// every other op stay fp32: only the products' inputs lose precision. Products with
// alpha != 1 or beta other than 0 and 1 stay fp32.
#include <cstdint>

namespace heed::kernels {

class Bf16Products {
 public:
  // Throws heed::Error when oneDNN has only its reference (scalar) bf16 kernel here.
  Bf16Products();
  ~Bf16Products();
  Bf16Products(const Bf16Products&) = delete;
  Bf16Products& operator=(const Bf16Products&) = delete;
};

// Whether a scope is open.
bool bf16_products_enabled();

// C = op(A) op(B) + beta C with bf16 inputs (beta 0 or 1); false (nothing done) when the
// case is not covered.
bool gemm_bf16(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K,
               float alpha, const float* A, std::int64_t lda, const float* B, std::int64_t ldb,
               float beta, float* C, std::int64_t ldc);

}  // namespace heed::kernels
