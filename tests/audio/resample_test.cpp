// Resampling (libsoxr): a sine keeps its frequency (the peak of its spectrum) and the signal
// its duration, round(n * to / from) samples, up and down and between unrelated rates.
#include "heed/audio/resample.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "heed/base/error.h"

namespace heed {
namespace {

std::vector<float> sine(double hz, int rate, std::size_t n, double amplitude = 0.5) {
  std::vector<float> x(n);
  for (std::size_t i = 0; i < n; ++i)
    x[i] = static_cast<float>(amplitude * std::sin(2 * std::numbers::pi * hz * i / rate));
  return x;
}

// The frequency (Hz) of the largest bin of the DFT of x[from, from + n), Hann-windowed.
double peak_hz(const std::vector<float>& x, std::size_t from, std::size_t n, int rate) {
  double best = -1, best_hz = 0;
  for (std::size_t k = 1; k < n / 2; ++k) {
    double re = 0, im = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const double w = 0.5 - 0.5 * std::cos(2 * std::numbers::pi * i / n);
      const double a = 2 * std::numbers::pi * k * i / n;
      re += w * x[from + i] * std::cos(a);
      im -= w * x[from + i] * std::sin(a);
    }
    if (re * re + im * im > best) {
      best = re * re + im * im;
      best_hz = static_cast<double>(k) * rate / n;
    }
  }
  return best_hz;
}

struct RateCase {
  int from, to;
  double hz;
};

TEST(Resample, KeepsTheFrequencyAndTheDuration) {
  for (const RateCase& c : {RateCase{8000, 16000, 1000}, RateCase{16000, 8000, 1000},
                            RateCase{44100, 16000, 3000}, RateCase{8000, 22050, 440},
                            RateCase{48000, 8000, 2500}}) {
    const std::size_t n = static_cast<std::size_t>(c.from) / 2;  // half a second
    const std::vector<float> y = resample(sine(c.hz, c.from, n), c.from, c.to);
    EXPECT_EQ(y.size(), static_cast<std::size_t>(c.to) / 2) << c.from << " -> " << c.to;
    // 1000 samples from the middle: bins of to / 1000 Hz; the peak in the sine's bin.
    const std::size_t m = 1000;
    const double found = peak_hz(y, y.size() / 2 - m / 2, m, c.to);
    EXPECT_NEAR(found, c.hz, static_cast<double>(c.to) / m / 2 + 1e-9)
        << c.from << " -> " << c.to;
    // The amplitude is kept (a sine well inside the pass band).
    float top = 0;
    for (std::size_t i = y.size() / 4; i < 3 * y.size() / 4; ++i) top = std::max(top, std::abs(y[i]));
    EXPECT_NEAR(top, 0.5, 0.01) << c.from << " -> " << c.to;
  }
}

TEST(Resample, LengthIsTheRoundedRatio) {
  const std::vector<float> x(12345, 0.25f);
  EXPECT_EQ(resample(x, 8000, 16000).size(), 24690u);
  EXPECT_EQ(resample(x, 8000, 44100).size(), 68052u);  // 68051.8 rounds up
  EXPECT_EQ(resample(x, 16000, 8000).size(), 6173u);   // 6172.5 rounds up
  EXPECT_EQ(resample(std::vector<float>(3, 0.1f), 8000, 44100).size(), 17u);
  EXPECT_TRUE(resample(std::vector<float>{}, 8000, 16000).empty());
}

TEST(Resample, EqualRatesCopy) {
  const std::vector<float> x = {0.1f, -0.2f, 0.3f};
  EXPECT_EQ(resample(x, 16000, 16000), x);
  const Audio a = resample(Audio{x, 8000}, 16000);
  EXPECT_EQ(a.sample_rate, 16000);
  EXPECT_EQ(a.samples.size(), 6u);
}

TEST(Resample, IsDeterministic) {
  const std::vector<float> x = sine(700, 8000, 4000);
  EXPECT_EQ(resample(x, 8000, 16000), resample(x, 8000, 16000));
}

TEST(Resample, RefusesRatesBelowOne) {
  EXPECT_THROW(resample(std::vector<float>{0.0f}, 0, 16000), Error);
  EXPECT_THROW(resample(std::vector<float>{0.0f}, 8000, -1), Error);
}

}  // namespace
}  // namespace heed
