#pragma once
// Per-utterance normalisation of features (docs/DATA.md, "Audio"): each feature (a column
// of a (frames, bins) tensor, one mel bin) shifted and scaled to mean 0 and variance 1 over
// the utterance's frames, so that a recording's level and channel matter less.
#include "heed/tensor/tensor.h"

namespace heed {

// The smallest standard deviation divided by: a bin constant over the utterance (silence at
// the log floor) becomes 0 rather than a division by zero.
inline constexpr double kMinFeatureStddev = 1e-5;

// (x - mean) / max(stddev, kMinFeatureStddev) per column of a 2-D float32 or float64
// tensor (the population variance, over every frame); a new tensor of the same dtype.
// Throws heed::Error for another rank or dtype.
Tensor normalize_utterance(const Tensor& features);

}  // namespace heed
