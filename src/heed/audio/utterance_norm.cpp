#include "heed/audio/utterance_norm.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "heed/base/error.h"

namespace heed {
namespace {

template <typename T>
void normalize(const T* x, T* y, std::int64_t frames, std::int64_t bins) {
  if (frames == 0) return;
  std::vector<double> mean(static_cast<std::size_t>(bins), 0.0), scale(mean);
  for (std::int64_t t = 0; t < frames; ++t)
    for (std::int64_t b = 0; b < bins; ++b) mean[b] += x[t * bins + b];
  for (double& m : mean) m /= static_cast<double>(frames);
  for (std::int64_t t = 0; t < frames; ++t)
    for (std::int64_t b = 0; b < bins; ++b) {
      const double d = x[t * bins + b] - mean[b];
      scale[b] += d * d;  // the sum of squares, then 1 / stddev
    }
  for (std::int64_t b = 0; b < bins; ++b)
    scale[b] =
        1.0 / std::max(std::sqrt(scale[b] / static_cast<double>(frames)), kMinFeatureStddev);
  for (std::int64_t t = 0; t < frames; ++t)
    for (std::int64_t b = 0; b < bins; ++b)
      y[t * bins + b] = static_cast<T>((x[t * bins + b] - mean[b]) * scale[b]);
}

}  // namespace

Tensor normalize_utterance(const Tensor& features) {
  HEED_CHECK(features.ndim() == 2, "normalize_utterance: features of ", features.ndim(),
             " dimensions, expected 2 (frames, bins)");
  HEED_CHECK(features.dtype() == DType::f32 || features.dtype() == DType::f64,
             "normalize_utterance: features of ", dtype_name(features.dtype()),
             ", expected f32 or f64");
  const Tensor x = features.contiguous();
  Tensor y = Tensor::empty_like(x);
  if (x.dtype() == DType::f32)
    normalize(x.data<float>(), y.data<float>(), x.dim(0), x.dim(1));
  else
    normalize(x.data<double>(), y.data<double>(), x.dim(0), x.dim(1));
  return y;
}

}  // namespace heed
