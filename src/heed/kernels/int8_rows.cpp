// Exception flags are never read, so comparisons may be treated as non-trapping and GCC may
// if-convert and vectorise this file's compare-and-select loops.
#pragma GCC optimize("no-trapping-math")

// The int8 products' per-call row work (int8_quantize.h): A quantised per row before the
// integer product, the integer sums scaled back to fp32 after it. Both run on every product
// of an int8 decoding step (the vocabulary projection's sums are B x V), so they are hot
// kernels, compiled once per kernel set into that set's namespace (kernel_table.h). Every
// step is written so that the sets compute the same bits: explicit fma where a product is
// added (no contraction left to the compiler), nearbyint in the default rounding mode, and
// selects whose NaN handling is spelt out.
#include <cmath>
#include <cstdint>

#include "heed/kernels/gemm.h"
#include "heed/kernels/int8_quantize.h"
#include "heed/kernels/kernel_table.h"

namespace heed::kernels::HEED_KERNEL_ISA {
namespace {

// Rows are independent; threads only pay off on large blocks.
constexpr std::int64_t kParallelWork = std::int64_t{1} << 16;

// nearbyint(x) clamped to [0, hi]; NaN to 0 (`r > 0 ? r : 0` is false for NaN).
inline float round_clamp(float x, float hi) {
  float r = std::nearbyint(x);
  r = r > 0.0f ? r : 0.0f;
  return r < hi ? r : hi;
}

template <bool kBias, bool kAccumulate>
void dequantize_row(const std::int32_t* s, std::int64_t N, float sa, std::int32_t z,
                    const float* w_scales, const std::int32_t* w_sums, const float* bias,
                    float* c) {
#pragma omp simd
  for (std::int64_t j = 0; j < N; ++j) {
    const float sum = static_cast<float>(s[j] - z * w_sums[j]);
    const float scale = sa * w_scales[j];
    if constexpr (kBias && kAccumulate)
      c[j] += std::fma(scale, sum, bias[j]);
    else if constexpr (kBias)
      c[j] = std::fma(scale, sum, bias[j]);
    else if constexpr (kAccumulate)
      c[j] = std::fma(scale, sum, c[j]);
    else
      c[j] = scale * sum;
  }
}

template <bool kBias, bool kAccumulate>
void dequantize_rows(const std::int32_t* S, std::int64_t M, std::int64_t N, const float* a_scales,
                     const std::int32_t* zero_points, const float* w_scales,
                     const std::int32_t* w_sums, const float* bias, float* C, std::int64_t ldc) {
  const bool parallel = M > 1 && M * N >= kParallelWork;
#pragma omp parallel for schedule(static) if (parallel) num_threads(num_threads())
  for (std::int64_t i = 0; i < M; ++i)
    dequantize_row<kBias, kAccumulate>(S + i * N, N, a_scales[i], zero_points[i], w_scales,
                                       w_sums, bias, C + i * ldc);
}

}  // namespace

void quantize_activation_rows(const float* a, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                              std::uint8_t* q, float* scales, std::int32_t* zero_points) {
  constexpr float kMax = static_cast<float>(kInt8ActivationMax);
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* in = a + i * ld;
    std::uint8_t* out = q + i * cols;
    // The range with 0 in it (so 0 is exact); a NaN is skipped (`v < lo` is false).
    float lo = 0.0f, hi = 0.0f;
#pragma omp simd reduction(min : lo) reduction(max : hi)
    for (std::int64_t j = 0; j < cols; ++j) {
      const float v = in[j];
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    const float s = (hi - lo) / kMax;
    const float inv = s > 0.0f ? 1.0f / s : 0.0f;
    const float z = round_clamp(-lo * inv, kMax);
    scales[i] = s;
    zero_points[i] = static_cast<std::int32_t>(z);
#pragma omp simd
    for (std::int64_t j = 0; j < cols; ++j)
      out[j] = static_cast<std::uint8_t>(static_cast<std::int32_t>(round_clamp(std::fma(in[j], inv, z), kMax)));
  }
}

void dequantize_int8_rows(const std::int32_t* S, std::int64_t M, std::int64_t N,
                          const float* a_scales, const std::int32_t* zero_points,
                          const float* w_scales, const std::int32_t* w_sums, const float* bias,
                          float beta, float* C, std::int64_t ldc) {
  const bool acc = beta != 0.0f;
  if (bias && acc)
    dequantize_rows<true, true>(S, M, N, a_scales, zero_points, w_scales, w_sums, bias, C, ldc);
  else if (bias)
    dequantize_rows<true, false>(S, M, N, a_scales, zero_points, w_scales, w_sums, bias, C, ldc);
  else if (acc)
    dequantize_rows<false, true>(S, M, N, a_scales, zero_points, w_scales, w_sums, bias, C, ldc);
  else
    dequantize_rows<false, false>(S, M, N, a_scales, zero_points, w_scales, w_sums, bias, C, ldc);
}

}  // namespace heed::kernels::HEED_KERNEL_ISA
