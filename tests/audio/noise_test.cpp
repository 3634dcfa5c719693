// Background noise: mean 0 and mean square 1 exactly, white flat and pink weighted to low
// frequencies, the same samples from the same seed.
#include "heed/audio/noise.h"

#include <gtest/gtest.h>

namespace heed {
namespace {

double mean_square_of_differences(const std::vector<double>& x) {
  double s = 0;
  for (std::size_t i = 1; i < x.size(); ++i) s += (x[i] - x[i - 1]) * (x[i] - x[i - 1]);
  return s / static_cast<double>(x.size() - 1);
}

TEST(Noise, HasMeanZeroAndMeanSquareOne) {
  for (NoiseKind kind : {NoiseKind::white, NoiseKind::pink}) {
    Rng rng(9);
    const std::vector<double> x = make_noise(kind, 10000, rng);
    ASSERT_EQ(x.size(), 10000u);
    double mean = 0, square = 0;
    for (double v : x) {
      mean += v;
      square += v * v;
    }
    EXPECT_NEAR(mean / 10000, 0.0, 1e-12) << enum_name(kind);
    EXPECT_NEAR(square / 10000, 1.0, 1e-12) << enum_name(kind);
  }
}

TEST(Noise, PinkHoldsLessHighFrequencyPowerThanWhite) {
  // The difference x[i] - x[i-1] is a high-pass filter: white noise gives 2 (independent
  // samples), pink far less, its power being in the low frequencies.
  Rng a(1), b(1);
  const double white = mean_square_of_differences(make_noise(NoiseKind::white, 50000, a));
  const double pink = mean_square_of_differences(make_noise(NoiseKind::pink, 50000, b));
  EXPECT_NEAR(white, 2.0, 0.05);
  EXPECT_LT(pink, 0.5);
  EXPECT_GT(pink, 0.01);
}

TEST(Noise, SameSeedSameNoise) {
  for (NoiseKind kind : {NoiseKind::white, NoiseKind::pink}) {
    Rng a(4), b(4), c(5);
    const auto x = make_noise(kind, 1000, a);
    EXPECT_EQ(x, make_noise(kind, 1000, b));
    EXPECT_NE(x, make_noise(kind, 1000, c));
  }
  Rng rng(1);
  EXPECT_TRUE(make_noise(NoiseKind::pink, 0, rng).empty());
  EXPECT_EQ(make_noise(NoiseKind::white, 1, rng), std::vector<double>{0.0});
}

}  // namespace
}  // namespace heed
