#pragma once
// bf16 products for mixed-precision training: what kernels::gemm runs for a float product
// whose GemmOptions ask for MatmulPrecision::bf16 (gemm.h). op(A) and op(B) are rounded to
// bfloat16 and the products summed in fp32 through oneDNN's matmul; C stays fp32. The
// weights, their gradients, the optimiser and every other op stay fp32: only the products'
// inputs lose precision. Products with alpha != 1 or beta other than 0 and 1 stay fp32.
#include <cstddef>
#include <cstdint>

namespace heed::kernels {

// Throws heed::Error when oneDNN has only its reference (scalar) bf16 kernel here; callers
// that will ask for bf16 products (the trainer, the benchmark) check once up front.
void require_bf16_products();

// Whether oneDNN has a fast bf16 kernel on this CPU (AVX-512 BF16, AMX): what
// require_bf16_products checks, as a value (tests skip the bf16 cases where it is false).
bool bf16_products_available();

// C = op(A) op(B) + beta C with bf16 inputs (beta 0 or 1); false (nothing done) when the
// case is not covered.
bool gemm_bf16(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K,
               float alpha, const float* A, std::int64_t lda, const float* B, std::int64_t ldb,
               float beta, float* C, std::int64_t ldc);

// The products gemm_bf16 has run on the calling thread (tests prove which path ran).
std::size_t bf16_products_run_on_this_thread();

}  // namespace heed::kernels
