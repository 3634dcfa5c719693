#include "heed/kernels/onednn.h"

#include <bit>
#include <cstring>

namespace heed::kernels {

dnnl::engine& onednn_engine() {
  static dnnl::engine e(dnnl::engine::kind::cpu, 0);
  return e;
}

void round_to_bf16(const float* src, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                   std::uint16_t* dst) {
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* in = src + i * ld;
    std::uint16_t* out = dst + i * cols;
    for (std::int64_t j = 0; j < cols; ++j) {  // branch-free, so it vectorises
      const std::uint32_t u = std::bit_cast<std::uint32_t>(in[j]);
      const std::uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
      const std::uint32_t nan = (u >> 16) | 0x40u;
      out[j] = static_cast<std::uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? nan : rounded);
    }
  }
}

void store_rows(const float* D, std::int64_t rows, std::int64_t cols, float beta, float* C,
                std::int64_t ldc) {
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* from = D + i * cols;
    float* to = C + i * ldc;
    if (beta == 0.0f)
      std::memcpy(to, from, static_cast<std::size_t>(cols) * sizeof(float));
    else
      for (std::int64_t j = 0; j < cols; ++j) to[j] += from[j];
  }
}

}  // namespace heed::kernels
