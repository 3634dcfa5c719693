#pragma once
// Frozen weights: products with a model's weights through oneDNN, the weights packed once.
//
// While a FrozenWeights scope is alive, every float product kernels::gemm is asked for of
// the form C = A B^T + beta C (beta 0 or 1) whose B lies inside one of the scope's ranges
// (a model's parameters: nn.Linear and RNN weights are stored (out, in), so x W^T is this
// form) runs through oneDNN's matmul: B is reordered once, on first use, into the blocked
// layout the kernel reads (no per-call packing, which is a third of a small-batch product
// through BLAS), and the kernels use the CPU's widest vectors. With MatmulPrecision::bf16
// the packed copy is rounded to bfloat16 and so is A on each call; products accumulate in
// fp32 and C stays fp32. Everything else (other shapes, double, no scope) goes to OpenBLAS.
//
// The weights must not change while a scope holds them: decoding opens one, training never
// does. Scopes nest and may be opened from several threads at once; they share one set of
// packed weights, freed when the last scope closes. All open scopes must agree on the
// precision (heed::Error otherwise).
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace heed::kernels {

enum class MatmulPrecision { f32, bf16 };

// "fp32" | "bf16" (heed::Error naming the choices otherwise), and back.
MatmulPrecision parse_matmul_precision(std::string_view name);
std::string_view matmul_precision_name(MatmulPrecision precision);

class FrozenWeights {
 public:
  struct Range {
    const float* data = nullptr;
    std::size_t size = 0;  // floats
  };
  FrozenWeights(std::span<const Range> ranges, MatmulPrecision precision);
  ~FrozenWeights();
  FrozenWeights(const FrozenWeights&) = delete;
  FrozenWeights& operator=(const FrozenWeights&) = delete;
};

// The number of weight matrices packed, and of products run on them, by the open scopes
// (0 when none is open).
std::size_t frozen_weights_packed();
std::size_t frozen_weights_products();

// C (M x N, row stride ldc) = A (M x K, lda) B^T + beta C, B (N x K, ldb) inside an open
// scope's ranges: runs the product and returns true; false (nothing done) when no scope
// covers B, beta is neither 0 nor 1, or oneDNN has no fast kernel for the shape.
bool gemm_frozen(std::int64_t M, std::int64_t N, std::int64_t K, const float* A, std::int64_t lda,
                 const float* B, std::int64_t ldb, float beta, float* C, std::int64_t ldc);

// C = A B^T + bias (N floats, added to every row) in the product itself (no pass that
// broadcasts the bias into C first); false (nothing done) as for gemm_frozen.
bool gemm_frozen_bias(std::int64_t M, std::int64_t N, std::int64_t K, const float* A,
                      std::int64_t lda, const float* B, std::int64_t ldb, const float* bias,
                      float* C, std::int64_t ldc);

}  // namespace heed::kernels
