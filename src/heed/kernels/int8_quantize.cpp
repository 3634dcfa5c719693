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

}  // namespace heed::kernels
