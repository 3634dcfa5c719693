#include "heed/audio/connected_digits.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "heed/audio/resample.h"
#include "heed/base/error.h"

namespace heed {
namespace {

void check_range(double lo, double hi, double min_allowed, const char* what) {
  if (!(lo >= min_allowed && lo <= hi && std::isfinite(hi)))
    throw UsageError(detail::concat(what, ": ", lo, " to ", hi, ", expected ", min_allowed,
                                    " <= min <= max"));
}

std::size_t samples_of(double seconds, int rate) {
  return static_cast<std::size_t>(std::llround(seconds * rate));
}

}  // namespace

void validate(const ConnectedDigitsOptions& o) {
  if (!(o.min_digits >= 1 && o.min_digits <= o.max_digits && o.max_digits <= 50))
    throw UsageError(detail::concat("--min-digits ", o.min_digits, " --max-digits ", o.max_digits,
                                    ": expected 1 <= min <= max <= 50"));
  if (!(o.sample_rate >= 1000 && o.sample_rate <= 192000))
    throw UsageError(detail::concat("--rate ", o.sample_rate, ": expected 1000 to 192000 Hz"));
  check_range(o.min_pause, o.max_pause, 0.0, "pauses between digits (seconds)");
  check_range(o.min_edge, o.max_edge, 0.0, "pauses before and after (seconds)");
  check_range(o.min_gain_db, o.max_gain_db, -1e9, "gains (dB)");
  if (!(o.min_speed >= 0.5 && o.min_speed <= o.max_speed && o.max_speed <= 2.0))
    throw UsageError(detail::concat("speeds ", o.min_speed, " to ", o.max_speed,
                                    ": expected 0.5 <= min <= max <= 2"));
  check_range(o.min_snr_db, o.max_snr_db, -1e9, "SNR (dB)");
  if (!(o.peak > 0 && o.peak <= 1))
    throw UsageError(detail::concat("peak ", o.peak, ": expected 0 < peak <= 1"));
}

ConnectedDigits make_connected_digits(std::span<const DigitClip> clips,
                                      const ConnectedDigitsOptions& o, Rng& rng) {
  validate(o);
  HEED_CHECK(!clips.empty(), "connected digits: no recordings to draw digits from");
  ConnectedDigits out;
  const auto n = static_cast<std::size_t>(o.min_digits) +
                 rng.below(static_cast<std::uint64_t>(o.max_digits - o.min_digits + 1));
  // Each digit's samples: its clip's, or the clip resampled when its speed is not 1.
  std::vector<std::span<const float>> chosen(n);
  std::vector<std::vector<float>> sped(n);
  std::vector<double> gain(n);
  for (std::size_t i = 0; i < n; ++i) {
    const DigitClip& clip = clips[rng.below(clips.size())];
    gain[i] = std::pow(10.0, rng.uniform(o.min_gain_db, o.max_gain_db) / 20.0);
    const double speed =
        o.min_speed < o.max_speed ? rng.uniform(o.min_speed, o.max_speed) : o.min_speed;
    const int from_rate = static_cast<int>(std::lround(speed * o.sample_rate));
    if (from_rate != o.sample_rate) {
      sped[i] = resample(clip.samples, from_rate, o.sample_rate);
      chosen[i] = sped[i];
    } else {
      chosen[i] = clip.samples;
    }
    if (o.equal_levels && !chosen[i].empty()) {
      double power = 0;
      for (float s : chosen[i]) power += static_cast<double>(s) * s;
      power /= static_cast<double>(chosen[i].size());
      if (power > 0) gain[i] *= kDigitLevel / std::sqrt(power);
    }
    out.digits.push_back(clip.digit);
  }
  std::vector<std::size_t> pause(n + 1);
  pause[0] = samples_of(rng.uniform(o.min_edge, o.max_edge), o.sample_rate);
  for (std::size_t i = 1; i < n; ++i)
    pause[i] = samples_of(rng.uniform(o.min_pause, o.max_pause), o.sample_rate);
  pause[n] = samples_of(rng.uniform(o.min_edge, o.max_edge), o.sample_rate);
  // Speech: pause, digit, pause, ..., digit, pause.
  std::size_t length = pause[n];
  for (std::size_t i = 0; i < n; ++i) length += pause[i] + chosen[i].size();
  std::vector<double> y(length, 0.0);
  double speech_power = 0, quietest = std::numeric_limits<double>::infinity();
  std::size_t speech_samples = 0, at = 0;
  for (std::size_t i = 0; i < n; ++i) {
    at += pause[i];
    double digit_power = 0;
    for (float s : chosen[i]) {
      const double v = gain[i] * s;
      y[at++] = v;
      digit_power += v * v;
    }
    speech_power += digit_power;
    speech_samples += chosen[i].size();
    if (!chosen[i].empty())
      quietest = std::min(quietest, digit_power / static_cast<double>(chosen[i].size()));
  }
  if (speech_samples > 0) speech_power /= static_cast<double>(speech_samples);
  out.noise = rng.below(2) == 0 ? NoiseKind::white : NoiseKind::pink;
  out.snr_db = rng.uniform(o.min_snr_db, o.max_snr_db);
  const std::vector<double> noise = make_noise(out.noise, length, rng);
  const double noise_scale = std::sqrt(speech_power / std::pow(10.0, out.snr_db / 10.0));
  out.min_digit_snr_db = speech_power > 0 && quietest < std::numeric_limits<double>::infinity()
                             ? out.snr_db + 10.0 * std::log10(quietest / speech_power)
                             : out.snr_db;
  double peak = 0;
  for (std::size_t i = 0; i < length; ++i) {
    y[i] += noise_scale * noise[i];
    peak = std::max(peak, std::abs(y[i]));
  }
  const double scale = peak > o.peak ? o.peak / peak : 1.0;
  out.samples.resize(length);
  for (std::size_t i = 0; i < length; ++i) out.samples[i] = static_cast<float>(y[i] * scale);
  return out;
}

std::string digit_words(std::span<const int> digits) {
  std::string out;
  for (int d : digits) {
    HEED_CHECK(d >= 0 && d <= 9, "digit_words: ", d, " is not a digit");
    if (!out.empty()) out += ' ';
    out += kDigitWords[static_cast<std::size_t>(d)];
  }
  return out;
}

}  // namespace heed
