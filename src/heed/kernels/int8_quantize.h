#pragma once
// Quantisation for int8 products (MatmulPrecision::int8, packed_weight.h).
//
// Weights: symmetric, per output channel (a row of a (out, in) weight): q = round(w / s) in
// [-127, 127] with s = max |w| / 127 over the row (s = 0 quantises an all-zero row to zeros).
// Activations: asymmetric per row, 7 bits: q = clamp(round(a / s) + z, 0, 127) with
// s = (max(a, 0) - min(a, 0)) / 127 and the zero point z = round(-min(a, 0) / s), so 0 is exact.
// Seven bits, not eight: without VNNI (AVX2, AVX-512 before Cascade Lake) the u8 x s8 products
// go through vpmaddubsw, whose pairwise int16 sum saturates for 255 * 127 * 2; 127 * 127 * 2
// does not, so the integer sums are exact, and the same, on every CPU (docs/ENGINE.md).
// Each value's error is at most half its row's scale.
#include <cstdint>

namespace heed::kernels {

inline constexpr int kInt8WeightMax = 127;      // weights in [-127, 127]
inline constexpr int kInt8ActivationMax = 127;  // activations in [0, 127]

// rows x cols floats (row stride ld) to dense int8 (row stride cols) and one scale per row.
void quantize_weight_rows(const float* w, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                          std::int8_t* q, float* scales);

// rows x cols floats (row stride ld) to dense u8 in [0, 127] (row stride cols), a scale and a
// zero point per row: a ~ scale * (q - zero_point), q = clamp(nearbyint(fma(a, 1 / scale,
// zero_point)), 0, 127) (a NaN to 0). Runs once per product, so it is a hot kernel: compiled
// per kernel set (int8_rows.cpp, kernel_table.h), every set computing the same bytes.
void quantize_activation_rows(const float* a, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                              std::uint8_t* q, float* scales, std::int32_t* zero_points);

// An int8 product's integer sums S (M x N, dense) back to fp32, in C (row stride ldc):
//   C[i][j] = fma(s_a[i] s_w[j], S[i][j] - z[i] sum_w[j], bias[j]) + beta C[i][j]
// (s_a, z: A's row scales and zero points; s_w, sum_w: the weight rows' scales and sums of
// their int8 values; bias may be null, beta is 0 or 1; without a bias and with beta 1 the
// fma adds C itself). A hot kernel like the one above.
void dequantize_int8_rows(const std::int32_t* S, std::int64_t M, std::int64_t N,
                          const float* a_scales, const std::int32_t* zero_points,
                          const float* w_scales, const std::int32_t* w_sums, const float* bias,
                          float beta, float* C, std::int64_t ldc);

}  // namespace heed::kernels
