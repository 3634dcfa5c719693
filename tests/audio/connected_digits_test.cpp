// Connected-digit utterances: digit counts in range, the transcript's words, pauses and clips
// where they belong, the noise at the SNR drawn, the peak limit, and the same utterance from
// the same seed.
#include "heed/audio/connected_digits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "heed/base/error.h"

namespace heed {
namespace {

// Clip d: 100 + 10 d samples of the constant 0.01 (d + 1).
std::vector<DigitClip> constant_clips() {
  std::vector<DigitClip> clips;
  for (int d = 0; d < 10; ++d)
    clips.push_back(DigitClip{d, std::vector<float>(100 + 10 * d, 0.01f * (d + 1))});
  return clips;
}

TEST(ConnectedDigits, DrawsDigitCountsInRange) {
  const auto clips = constant_clips();
  ConnectedDigitsOptions o;
  o.min_digits = 2;
  o.max_digits = 4;
  Rng rng(3);
  std::set<std::size_t> counts;
  std::set<int> digits;
  for (int i = 0; i < 300; ++i) {
    const ConnectedDigits u = make_connected_digits(clips, o, rng);
    counts.insert(u.digits.size());
    digits.insert(u.digits.begin(), u.digits.end());
    // The length: the clips, two edges of 0.1-0.4 s, pauses of 0.05-0.5 s between digits.
    std::size_t clip_samples = 0;
    for (int d : u.digits) clip_samples += 100 + 10 * static_cast<std::size_t>(d);
    const std::size_t n = u.digits.size();
    EXPECT_GE(u.samples.size(), clip_samples + 2 * 800 + (n - 1) * 400);
    EXPECT_LE(u.samples.size(), clip_samples + 2 * 3200 + (n - 1) * 4000);
    EXPECT_GE(u.snr_db, 10.0);
    EXPECT_LE(u.snr_db, 30.0);
  }
  EXPECT_EQ(counts, (std::set<std::size_t>{2, 3, 4}));
  EXPECT_EQ(digits.size(), 10u);
}

TEST(ConnectedDigits, AddsNoiseAtTheSnrDrawn) {
  // One digit at its recording's level, no gain, fixed edges, SNR 20 dB: the noise is the
  // utterance minus the clip.
  const auto clips = constant_clips();
  ConnectedDigitsOptions o;
  o.equal_levels = false;
  o.min_digits = o.max_digits = 1;
  o.min_edge = o.max_edge = 0.1;  // 800 samples
  o.min_gain_db = o.max_gain_db = 0;
  o.min_snr_db = o.max_snr_db = 20;
  std::set<NoiseKind> kinds;
  Rng rng(11);
  for (int i = 0; i < 20; ++i) {
    const ConnectedDigits u = make_connected_digits(clips, o, rng);
    ASSERT_EQ(u.digits.size(), 1u);
    const int d = u.digits[0];
    const std::size_t len = 100 + 10 * static_cast<std::size_t>(d);
    ASSERT_EQ(u.samples.size(), 1600 + len);
    const double level = 0.01 * (d + 1);
    double noise_power = 0;
    for (std::size_t j = 0; j < u.samples.size(); ++j) {
      const double speech = j >= 800 && j < 800 + len ? level : 0.0;
      noise_power += (u.samples[j] - speech) * (u.samples[j] - speech);
    }
    noise_power /= static_cast<double>(u.samples.size());
    EXPECT_NEAR(10 * std::log10(level * level / noise_power), 20.0, 1e-3);
    kinds.insert(u.noise);
  }
  EXPECT_EQ(kinds.size(), 2u);  // white and pink both drawn
}

// The quietest digit's SNR: its own power over the noise power. Two or three digits at their
// recordings' levels, no gain, 20 dB: the utterance's speech power is the clips'
// sample-weighted mean square; at equal levels every digit's SNR is the utterance's.
TEST(ConnectedDigits, ReportsTheQuietestDigitsSnr) {
  const auto clips = constant_clips();
  ConnectedDigitsOptions o;
  o.equal_levels = false;
  o.min_digits = 2;
  o.max_digits = 3;
  o.min_gain_db = o.max_gain_db = 0;
  o.min_snr_db = o.max_snr_db = 20;
  Rng rng(5);
  for (int i = 0; i < 20; ++i) {
    const ConnectedDigits u = make_connected_digits(clips, o, rng);
    double power = 0, samples = 0, quietest = 1;
    for (int d : u.digits) {
      const double level = 0.01 * (d + 1), n = 100 + 10 * d;
      power += level * level * n;
      samples += n;
      quietest = std::min(quietest, level * level);
    }
    power /= samples;
    EXPECT_NEAR(u.min_digit_snr_db, 20.0 + 10 * std::log10(quietest / power), 1e-5);  // float clips
    EXPECT_LE(u.min_digit_snr_db, 20.0 + 1e-12);
  }
  o.equal_levels = true;
  for (int i = 0; i < 5; ++i)
    EXPECT_NEAR(make_connected_digits(clips, o, rng).min_digit_snr_db, 20.0, 1e-5);
  o.equal_levels = false;
  o.min_digits = o.max_digits = 1;  // one digit: its SNR is the utterance's
  const ConnectedDigits one = make_connected_digits(clips, o, rng);
  EXPECT_NEAR(one.min_digit_snr_db, 20.0, 1e-9);
}

// --levels equal: every recording at an RMS of kDigitLevel before its gain, whatever its own
// level; the same draws as at the recordings' levels (digits, lengths, noise, SNR).
TEST(ConnectedDigits, EqualLevelsScaleEveryRecordingToOneRms) {
  const auto clips = constant_clips();  // levels 0.01 to 0.1
  ConnectedDigitsOptions o;
  o.min_edge = o.max_edge = 0.1;  // 800 samples before the first digit
  o.min_gain_db = o.max_gain_db = 0;
  o.min_snr_db = o.max_snr_db = 300;  // noise 1e-15 of the speech
  o.min_digits = o.max_digits = 1;
  Rng a(8), b(8);
  for (int i = 0; i < 10; ++i) {
    const ConnectedDigits u = make_connected_digits(clips, o, a);
    ConnectedDigitsOptions recorded = o;
    recorded.equal_levels = false;
    const ConnectedDigits v = make_connected_digits(clips, recorded, b);
    ASSERT_EQ(u.digits, v.digits);
    ASSERT_EQ(u.samples.size(), v.samples.size());
    EXPECT_EQ(u.noise, v.noise);
    EXPECT_EQ(u.snr_db, v.snr_db);
    EXPECT_NEAR(u.samples[800], kDigitLevel, 1e-6) << "digit " << u.digits[0];
    EXPECT_NEAR(v.samples[800], 0.01 * (u.digits[0] + 1), 1e-6);
  }
}

TEST(ConnectedDigits, NeverExceedsThePeak) {
  const std::vector<DigitClip> loud = {DigitClip{7, std::vector<float>(500, 0.9f)}};
  ConnectedDigitsOptions o;
  o.equal_levels = false;
  o.min_gain_db = o.max_gain_db = 12;  // 3.6 before the limit
  Rng rng(2);
  for (int i = 0; i < 10; ++i) {
    const ConnectedDigits u = make_connected_digits(loud, o, rng);
    float top = 0;
    for (float s : u.samples) top = std::max(top, std::abs(s));
    EXPECT_LE(top, 0.99f);
    EXPECT_GT(top, 0.98f);
  }
}

TEST(ConnectedDigits, SilentClipsGetNoNoise) {
  const std::vector<DigitClip> silent = {DigitClip{0, std::vector<float>(50, 0.0f)}};
  Rng rng(1);
  const ConnectedDigits u = make_connected_digits(silent, ConnectedDigitsOptions{}, rng);
  for (float s : u.samples) EXPECT_EQ(s, 0.0f);
}

TEST(ConnectedDigits, SameSeedSameUtterance) {
  const auto clips = constant_clips();
  const ConnectedDigitsOptions o;
  Rng a(8), b(8), c(9);
  const ConnectedDigits x = make_connected_digits(clips, o, a);
  const ConnectedDigits y = make_connected_digits(clips, o, b);
  EXPECT_EQ(x.samples, y.samples);
  EXPECT_EQ(x.digits, y.digits);
  EXPECT_NE(x.samples, make_connected_digits(clips, o, c).samples);
}

TEST(ConnectedDigits, PlaysEachDigitAtItsSpeed) {
  // Fixed edges, pauses and gains: a fixed speed draws nothing, so speeds 1 and 1.25 give the
  // same digits and noise draws, each clip resampled to round(len / 1.25) samples. (A fresh
  // Rng per utterance: the noise draws as many numbers as the utterance has samples.)
  const auto clips = constant_clips();
  ConnectedDigitsOptions o;
  o.min_digits = o.max_digits = 3;
  o.min_edge = o.max_edge = 0.1;
  o.min_pause = o.max_pause = 0.1;
  o.min_gain_db = o.max_gain_db = 0;
  ConnectedDigitsOptions fast = o;
  fast.min_speed = fast.max_speed = 1.25;
  for (std::uint64_t i = 0; i < 10; ++i) {
    Rng a(4 + i), b(4 + i);
    const ConnectedDigits x = make_connected_digits(clips, o, a);
    const ConnectedDigits y = make_connected_digits(clips, fast, b);
    ASSERT_EQ(x.digits, y.digits);
    EXPECT_EQ(x.snr_db, y.snr_db);
    std::size_t plain = 4 * 800, sped = 4 * 800;
    for (int d : x.digits) {
      const std::size_t len = 100 + 10 * static_cast<std::size_t>(d);
      plain += len;
      sped += static_cast<std::size_t>(std::llround(static_cast<double>(len) / 1.25));
    }
    EXPECT_EQ(x.samples.size(), plain);
    EXPECT_EQ(y.samples.size(), sped);
  }
  // A range: each digit's length somewhere between its clip's at 1.1 and at 0.9, not fixed.
  ConnectedDigitsOptions range = o;
  range.min_digits = range.max_digits = 1;
  range.min_speed = 0.9;
  range.max_speed = 1.1;
  std::set<std::size_t> lengths;
  Rng c(5);
  for (int i = 0; i < 40; ++i) {
    const ConnectedDigits u = make_connected_digits(clips, range, c);
    const double len = 100 + 10 * u.digits[0];
    const double speech = static_cast<double>(u.samples.size()) - 1600;
    EXPECT_GE(speech, std::floor(len / 1.1));
    EXPECT_LE(speech, std::ceil(len / 0.9));
    lengths.insert(u.samples.size());
  }
  EXPECT_GT(lengths.size(), 10u);
}

TEST(ConnectedDigits, WordsOfTheDigits) {
  EXPECT_EQ(digit_words(std::vector<int>{4, 0, 7}), "four zero seven");
  EXPECT_EQ(digit_words(std::vector<int>{9}), "nine");
  EXPECT_EQ(digit_words(std::vector<int>{}), "");
  EXPECT_THROW(digit_words(std::vector<int>{10}), Error);
}

TEST(ConnectedDigits, RefusesBadOptionsAndNoClips) {
  ConnectedDigitsOptions o;
  o.min_digits = 3;
  o.max_digits = 2;
  EXPECT_THROW(validate(o), UsageError);
  o = {};
  o.max_digits = 51;
  EXPECT_THROW(validate(o), UsageError);
  o = {};
  o.sample_rate = 500;
  EXPECT_THROW(validate(o), UsageError);
  o = {};
  o.min_pause = -0.1;
  EXPECT_THROW(validate(o), UsageError);
  o = {};
  o.peak = 1.5;
  EXPECT_THROW(validate(o), UsageError);
  o = {};
  o.min_speed = 0.4;
  EXPECT_THROW(validate(o), UsageError);
  o = {};
  o.max_speed = 2.5;
  EXPECT_THROW(validate(o), UsageError);
  o = {};
  o.min_speed = 1.1;
  o.max_speed = 0.9;
  EXPECT_THROW(validate(o), UsageError);
  Rng rng(1);
  EXPECT_THROW(make_connected_digits({}, ConnectedDigitsOptions{}, rng), Error);
}

}  // namespace
}  // namespace heed
