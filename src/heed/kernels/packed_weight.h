#pragma once
// PackedWeight: one weight matrix frozen for products through oneDNN, packed once.
//
// A PackedWeight is made for a parameter's storage (a model's weight: nn.Linear and RNN
// weights are stored (out, in), so x W^T is the product) and handed explicitly to the
// products with that weight: kernels::gemm and kernels::affine_rows take it in GemmOptions
// (gemm.h). A product C = A B^T + beta C (beta 0 or 1, alpha 1) whose B is the weight or a
// block of it runs through oneDNN's matmul: that block is reordered once, on first use, into
// the blocked layout the kernel reads (no per-call packing, which is a third of a
// small-batch product through BLAS), and the kernels use the CPU's widest vectors. With
// MatmulPrecision::bf16 the packed copy is rounded to bfloat16 and so is A on each call;
// products accumulate in fp32 and C stays fp32. With MatmulPrecision::int8 the packed copy is
// int8 with a scale per row of the block (per output channel) and A is quantised per row on
// each call (int8_quantize.h); oneDNN sums u8 x s8 products in int32 (VNNI where the CPU has
// it, AVX2 or AVX-512 otherwise: the same sums on every CPU) and the sums are scaled into C
// (with the bias and beta of the fp32 path). Each element of C is then within
// s_w[j]/2 sum_k |A_ik| + s_a[i]/2 sum_k |Wq_jk| of the fp32 product (s_w, s_a: the row
// scales, Wq the dequantised weight), plus fp32 rounding.
//
// The weight must not change while its PackedWeight lives: decoding makes them
// (decode/frozen_model.h), training never does. Products may run from several threads at
// once; they share the packs.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "heed/kernels/precision.h"

namespace heed::kernels {

class PackedWeight {
 public:
  // data: the weight's size floats.
  PackedWeight(const float* data, std::size_t size, MatmulPrecision precision);
  ~PackedWeight();
  PackedWeight(const PackedWeight&) = delete;
  PackedWeight& operator=(const PackedWeight&) = delete;

  MatmulPrecision precision() const;
  const float* data() const;
  std::size_t size() const;

  // C (M x N, row stride ldc) = A (M x K, lda) B^T + beta C, B (N x K, ldb) inside this
  // weight (heed::Error otherwise): runs the product and returns true; false (nothing done)
  // when beta is neither 0 nor 1 or oneDNN has no fast kernel for the shape.
  bool gemm(std::int64_t M, std::int64_t N, std::int64_t K, const float* A, std::int64_t lda,
            const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc) const;

  // C = A B^T + bias (N floats, added to every row) in the product itself (no pass that
  // broadcasts the bias into C first); false (nothing done) as for gemm.
  bool gemm_bias(std::int64_t M, std::int64_t N, std::int64_t K, const float* A, std::int64_t lda,
                 const float* B, std::int64_t ldb, const float* bias, float* C,
                 std::int64_t ldc) const;

  // oneDNN's kernel for this weight's products (e.g. "brg:avx512_core_vnni", "gemm:jit"),
  // as oneDNN names it for a product of M rows; "none" when it has no fast one.
  static std::string implementation(MatmulPrecision precision, std::int64_t M, std::int64_t N,
                                    std::int64_t K);

  // The blocks of this weight packed so far, and the products run on them.
  std::size_t packed() const;
  std::size_t products() const;

 private:
  bool run(std::int64_t M, std::int64_t N, std::int64_t K, const float* A, std::int64_t lda,
           const float* B, std::int64_t ldb, float beta, const float* bias, float* C,
           std::int64_t ldc) const;
  struct State;
  std::unique_ptr<State> s_;
};

}  // namespace heed::kernels
