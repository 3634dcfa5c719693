#pragma once
// Connected-digit utterances (docs/DATA.md, "Spoken digits"): recordings of single spoken
// digits joined into one utterance of 1 to 7 digits, with random pauses, gains and
// background noise (and, as a training option, each digit's speed perturbed), every choice
// drawn from one Rng. `heed data digits` writes them.
#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "heed/audio/noise.h"
#include "heed/base/random.h"

namespace heed {

// The transcript's word for each digit.
inline constexpr std::array<std::string_view, 10> kDigitWords = {
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"};

// The RMS every recording is scaled to with equal_levels (-20 dBFS).
inline constexpr double kDigitLevel = 0.1;

// One recording of one digit, at the utterances' rate.
struct DigitClip {
  int digit = 0;
  std::vector<float> samples;
};

struct ConnectedDigitsOptions {
  int sample_rate = 8000;
  int min_digits = 1, max_digits = 7;
  double min_pause = 0.05, max_pause = 0.5;      // seconds between two digits
  double min_edge = 0.1, max_edge = 0.4;         // seconds before the first, after the last
  // Each recording scaled to an RMS of kDigitLevel before its gain (heed data digits --levels
  // equal, the default): FSDD's speakers recorded at levels 20 dB apart (median RMS 46.5 dB
  // for theo, 68.9 for jackson), so with their own levels (false: --levels recorded, the data
  // of runs before 2026-11-30) a quiet speaker's digit beside loud ones lay up to 20 dB below
  // the utterance's SNR, under the noise.
  bool equal_levels = true;
  double min_gain_db = -6.0, max_gain_db = 6.0;  // each digit's gain
  // Each digit's speed (Ko et al. 2015's speed perturbation): its clip played s times as
  // fast, tempo and pitch together (resampled from s * rate to rate). 1, 1: unchanged.
  double min_speed = 1.0, max_speed = 1.0;
  double min_snr_db = 10.0, max_snr_db = 30.0;   // speech to noise
  double peak = 0.99;                            // the largest |sample| allowed
};

// Throws UsageError naming the option unless 1 <= min_digits <= max_digits <= 50, the
// rate is 1000 to 192000 Hz and every range is ordered (pauses and edges >= 0, speeds in
// [0.5, 2], peak in (0, 1]).
void validate(const ConnectedDigitsOptions& options);

struct ConnectedDigits {
  std::vector<float> samples;
  std::vector<int> digits;
  NoiseKind noise = NoiseKind::white;
  double snr_db = 0.0;
  // The quietest digit's own SNR: its mean square (gained) over the noise power, in dB. The
  // SNR above averages the digits' power, so a digit drawn 6 dB down from a quiet recording
  // can lie well below it (no noise: snr_db).
  double min_digit_snr_db = 0.0;
};

// One utterance from clips (at options.sample_rate), drawn from rng in this order: the
// number of digits n (uniform in min..max); per digit its clip (uniform over the clips,
// Rng::below), gain in dB (uniform) and, only when min_speed < max_speed, its speed
// (uniform; a fixed speed draws nothing, so the default draws what it always did); the
// pause before the first digit, the n - 1 pauses between digits and the pause after the
// last (seconds, uniform, rounded to samples); the noise kind (white or pink, one chance in
// two) and the SNR in dB (uniform); the noise. With equal_levels each digit's samples (after
// its speed) are first scaled to an RMS of kDigitLevel, then by its gain (no draw: the same
// choices as with the recordings' levels). The noise is scaled so that speech power /
// noise power is the SNR, speech power being the mean square of the gained digit samples
// (pauses excluded; no noise when it is 0). The sum is scaled down, speech and noise
// together, when its largest |sample| exceeds peak.
// Throws heed::Error for no clips.
ConnectedDigits make_connected_digits(std::span<const DigitClip> clips,
                                      const ConnectedDigitsOptions& options, Rng& rng);

// The digits as words separated by single spaces: {4, 0, 7} -> "four zero seven".
std::string digit_words(std::span<const int> digits);

}  // namespace heed
