#pragma once
// GEMM: C = alpha * op(A) op(B) + beta * C, row-major, transposes by flag
// (no copies). op(A) is M x K, op(B) is K x N, C is M x N; ld* are row strides.
//
// How a float product runs is the caller's explicit choice, GemmOptions:
//  - packed_b: B's PackedWeight (packed_weight.h) when B is a frozen weight (or a block of
//    it). Products A B^T with alpha 1 and beta 0 or 1 run on the packed copy at the
//    weight's precision.
//  - precision: every other float product; bf16 rounds op(A) and op(B) to bfloat16 and sums
//    in fp32 (bf16_products.h), fp32 runs oneDNN's sgemm.
// double goes to OpenBLAS and ignores the options.
#include <cstdint>

#include "heed/kernels/precision.h"

namespace heed::kernels {

class PackedWeight;

struct GemmOptions {
  MatmulPrecision precision = MatmulPrecision::f32;
  const PackedWeight* packed_b = nullptr;
};

template <typename T>
void gemm(const GemmOptions& options, bool trans_a, bool trans_b, std::int64_t M, std::int64_t N,
          std::int64_t K, T alpha, const T* A, std::int64_t lda, const T* B, std::int64_t ldb,
          T beta, T* C, std::int64_t ldc);

// A batch of independent GEMMs with fixed strides between consecutive matrices.
template <typename T>
void gemm_batched(const GemmOptions& options, bool trans_a, bool trans_b, std::int64_t batch,
                  std::int64_t M, std::int64_t N, std::int64_t K, T alpha, const T* A,
                  std::int64_t lda, std::int64_t stride_a, const T* B, std::int64_t ldb,
                  std::int64_t stride_b, T beta, T* C, std::int64_t ldc, std::int64_t stride_c);

// y (rows x out, dense) = x (rows x in, dense) W^T + b: W (out x in) as nn.Linear stores
// it, b (out) or null for none. With options.packed_b (W's PackedWeight) the bias is added
// by the product itself; otherwise it is broadcast into y and the product accumulates.
template <typename T>
void affine_rows(const GemmOptions& options, std::int64_t rows, std::int64_t out, std::int64_t in,
                 const T* x, const T* W, const T* b, T* y);

// The number of threads BLAS and heed's own loops use (OpenMP; one pool, never both).
void set_num_threads(int n);
int num_threads();

// set_num_threads(n) until the end of the scope, then the number before it.
class ScopedNumThreads {
 public:
  explicit ScopedNumThreads(int n) : before_(num_threads()) {
    if (n != before_) set_num_threads(n);
  }
  ~ScopedNumThreads() {
    if (num_threads() != before_) set_num_threads(before_);
  }
  ScopedNumThreads(const ScopedNumThreads&) = delete;
  ScopedNumThreads& operator=(const ScopedNumThreads&) = delete;

 private:
  int before_;
};

}  // namespace heed::kernels
