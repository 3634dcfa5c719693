#pragma once
// GEMM: C = alpha * op(A) op(B) + beta * C, row-major, transposes by flag
// (no copies). op(A) is M x K, op(B) is K x N, C is M x N; ld* are row strides.
// float goes to oneDNN: products A B^T with B inside an open FrozenWeights scope run on
// packed weights (frozen_weights.h); inside a Bf16Products scope the rest round their inputs
// to bfloat16 (bf16_products.h); otherwise dnnl_sgemm. double goes to OpenBLAS.
#include <cstdint>

namespace heed::kernels {

template <typename T>
void gemm(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K, T alpha,
          const T* A, std::int64_t lda, const T* B, std::int64_t ldb, T beta, T* C,
          std::int64_t ldc);

// A batch of independent GEMMs with fixed strides between consecutive matrices.
template <typename T>
void gemm_batched(bool trans_a, bool trans_b, std::int64_t batch, std::int64_t M, std::int64_t N,
                  std::int64_t K, T alpha, const T* A, std::int64_t lda, std::int64_t stride_a,
                  const T* B, std::int64_t ldb, std::int64_t stride_b, T beta, T* C,
                  std::int64_t ldc, std::int64_t stride_c);

// y (rows x out, dense) = x (rows x in, dense) W^T + b: W (out x in) as nn.Linear stores
// it, b (out) or null for none. With W inside an open FrozenWeights scope the bias is added
// by the product itself; otherwise it is broadcast into y and the product accumulates.
template <typename T>
void affine_rows(std::int64_t rows, std::int64_t out, std::int64_t in, const T* x, const T* W,
                 const T* b, T* y);

// The number of threads BLAS and heed's own loops use (OpenMP; one pool, never both).
void set_num_threads(int n);
int num_threads();

}  // namespace heed::kernels
