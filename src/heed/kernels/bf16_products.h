#pragma once
// bf16 products for mixed-precision training: what kernels::gemm runs for a float product
// whose GemmOptions ask for MatmulPrecision::bf16 (gemm.h). op(A) and op(B) are rounded to
// bfloat16 and the products summed in fp32 through oneDNN's matmul; C stays fp32. The
// weights, their gradients, the optimiser and every other op stay fp32: only the products'
// inputs lose precision. Products with alpha != 1 or beta other than 0 and 1 stay fp32.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

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

// rows x cols floats (row stride ld) to dense bfloat16 (row stride cols), rounded to
// nearest even; NaN stays NaN (quiet, its sign kept). A hot kernel of every kernel set
// (bf16_rows.cpp).
void round_to_bf16(const float* src, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                   std::uint16_t* dst);

// The products gemm_bf16 has run on the calling thread (tests prove which path ran).
std::size_t bf16_products_run_on_this_thread();

// A promise, for the scope's lifetime, that the fp32 regions listed (a model's parameters
// between one update and the next: a training step's forward and backward) do not change.
// An operand of gemm_bf16 that lies wholly inside one of them is rounded once per scope and
// thread and its bf16 copy reused by every later product in the scope: a recurrent weight
// is multiplied at every time step, forward and backward, and rounding it each time was
// most of the rounding's cost (docs/PERFORMANCE.md). Any other operand (activations,
// gradients) is rounded on every product, as outside a scope. One scope at a time: opening a
// second while one is open throws heed::Error. Copies are kept per thread, in buffers reused
// from scope to scope while the same regions are multiplied.
class Bf16WeightScope {
 public:
  // Each region: its first float and its length in floats.
  explicit Bf16WeightScope(std::vector<std::pair<const float*, std::size_t>> regions);
  ~Bf16WeightScope();
  Bf16WeightScope(const Bf16WeightScope&) = delete;
  Bf16WeightScope& operator=(const Bf16WeightScope&) = delete;
};

// The operands gemm_bf16 took from a scope's bf16 copies, and those it rounded into one, on
// the calling thread (tests prove the copies are reused, and made again in a new scope).
struct Bf16WeightCopyCounts {
  std::size_t reused = 0, made = 0;
};
Bf16WeightCopyCounts bf16_weight_copies_on_this_thread();

}  // namespace heed::kernels
