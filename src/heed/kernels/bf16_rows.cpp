// The bf16 products' per-call row work (bf16_products.h): each operand of a bf16 product is rounded
// from fp32 before oneDNN multiplies it, the weights as well as the activations in training,
// so the rounding runs on every product of a bf16 training step (a tenth of a one-thread mt
// step when it was compiled for AVX2 alone). A hot kernel, compiled once per kernel set into
// that set's namespace (kernel_table.h); integer operations only, so every set computes the
// same bits.
#include <bit>
#include <cstdint>

#include "heed/kernels/kernel_table.h"

namespace heed::kernels::HEED_KERNEL_ISA {
namespace {

void round_row(const float* in, std::int64_t cols, std::uint16_t* out) {
#pragma omp simd
  for (std::int64_t j = 0; j < cols; ++j) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(in[j]);
    const std::uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;  // to nearest even
    const std::uint32_t nan = (u >> 16) | 0x40u;                           // quiet, sign kept
    out[j] = static_cast<std::uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
  }
}

}  // namespace

// One thread: decoding calls it from its own row-block threads, and in training it is memory
// bound beside the product that follows.
void round_to_bf16(const float* src, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                   std::uint16_t* dst) {
  for (std::int64_t i = 0; i < rows; ++i) round_row(src + i * ld, cols, dst + i * cols);
}

}  // namespace heed::kernels::HEED_KERNEL_ISA
