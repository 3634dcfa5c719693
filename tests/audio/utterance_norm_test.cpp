// Per-utterance normalisation: every mel bin at mean 0 and variance 1 over the frames,
// constant bins at 0, exact values on a small case, float32 and float64.
#include "heed/audio/utterance_norm.h"

#include <gtest/gtest.h>

#include <cmath>

#include "heed/base/error.h"

namespace heed {
namespace {

TEST(UtteranceNorm, GivesEachBinMeanZeroVarianceOne) {
  const std::int64_t frames = 50, bins = 7;
  Tensor x = Tensor::empty({frames, bins});
  for (std::int64_t t = 0; t < frames; ++t)
    for (std::int64_t b = 0; b < bins; ++b)
      x.set({t, b}, -20.0 + 3.0 * b + (b + 1) * std::sin(0.3 * t * (b + 1)));
  const Tensor y = normalize_utterance(x);
  ASSERT_EQ(y.shape(), x.shape());
  EXPECT_EQ(y.dtype(), DType::f32);
  for (std::int64_t b = 0; b < bins; ++b) {
    double mean = 0, square = 0;
    for (std::int64_t t = 0; t < frames; ++t) mean += y.at({t, b});
    mean /= frames;
    for (std::int64_t t = 0; t < frames; ++t) square += (y.at({t, b}) - mean) * (y.at({t, b}) - mean);
    EXPECT_NEAR(mean, 0.0, 1e-6) << b;
    EXPECT_NEAR(square / frames, 1.0, 1e-5) << b;
  }
}

TEST(UtteranceNorm, ExactOnASmallCase) {
  // Column 0: 1, 3 (mean 2, stddev 1); column 1: 10, 10, constant: 0.
  const Tensor x = Tensor::from({2, 2}, {1, 10, 3, 10}, DType::f64);
  EXPECT_EQ(normalize_utterance(x).to_vector(), (std::vector<double>{-1, 0, 1, 0}));
  // One frame: every bin constant.
  EXPECT_EQ(normalize_utterance(Tensor::from({1, 3}, {4, -2, 7})).to_vector(),
            (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(normalize_utterance(Tensor::zeros({0, 80})).shape(), Shape({0, 80}));
}

TEST(UtteranceNorm, LeavesItsInputAndReadsViews) {
  // Transposed, (2, 2) not contiguous: frames (1, 3) and (10, 10).
  const Tensor x = Tensor::from({2, 2}, {1, 10, 3, 10});
  const Tensor y = normalize_utterance(x.transpose(0, 1));
  EXPECT_EQ(y.to_vector(), (std::vector<double>{-1, -1, 1, 1}));
  EXPECT_EQ(x.to_vector(), (std::vector<double>{1, 10, 3, 10}));
}

TEST(UtteranceNorm, RefusesOtherRanks) {
  EXPECT_THROW(normalize_utterance(Tensor::zeros({2, 3, 4})), Error);
  EXPECT_THROW(normalize_utterance(Tensor::zeros({5})), Error);
}

}  // namespace
}  // namespace heed
