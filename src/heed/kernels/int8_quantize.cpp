#include "heed/kernels/int8_quantize.h"

#include <algorithm>
#include <cmath>

namespace heed::kernels {
namespace {

// round(x) into [lo, hi]; NaN to 0 (a NaN input has no integer; fp32 would carry it on).
float clamp_round(float x, float lo, float hi) {
  const float r = std::nearbyint(x);
  return r >= lo ? (r <= hi ? r : hi) : (r < lo ? lo : 0.0f);
}

}  // namespace

void quantize_weight_rows(const float* w, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                          std::int8_t* q, float* scales) {
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* in = w + i * ld;
    std::int8_t* out = q + i * cols;
    float m = 0.0f;
    for (std::int64_t j = 0; j < cols; ++j) m = std::max(m, std::fabs(in[j]));
    const float s = m / kInt8WeightMax;
    scales[i] = s;
    const float inv = s > 0.0f ? 1.0f / s : 0.0f;
    for (std::int64_t j = 0; j < cols; ++j) {
      out[j] = static_cast<std::int8_t>(
          clamp_round(in[j] * inv, -float(kInt8WeightMax), float(kInt8WeightMax)));
    }
  }
}

void quantize_activation_rows(const float* a, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                              std::uint8_t* q, float* scales, std::int32_t* zero_points) {
  for (std::int64_t i = 0; i < rows; ++i) {
    const float* in = a + i * ld;
    std::uint8_t* out = q + i * cols;
    float lo = 0.0f, hi = 0.0f;
    for (std::int64_t j = 0; j < cols; ++j) {
      lo = std::min(lo, in[j]);
      hi = std::max(hi, in[j]);
    }
    const float s = (hi - lo) / kInt8ActivationMax;
    const float inv = s > 0.0f ? 1.0f / s : 0.0f;
    const float z = clamp_round(-lo * inv, 0.0f, float(kInt8ActivationMax));
    scales[i] = s;
    zero_points[i] = static_cast<std::int32_t>(z);
    for (std::int64_t j = 0; j < cols; ++j) {
      out[j] = static_cast<std::uint8_t>(clamp_round(in[j] * inv + z, 0.0f, float(kInt8ActivationMax)));
    }
  }
}

}  // namespace heed::kernels
