#include "heed/audio/mel_filterbank.h"

#include <algorithm>
#include <cmath>

#include "heed/base/error.h"

namespace heed {
namespace {

// The Slaney scale: linear to 1 kHz, then logarithmic.
constexpr double kSlaneyHzPerMel = 200.0 / 3.0;
constexpr double kSlaneyBreakHz = 1000.0;
constexpr double kSlaneyBreakMel = kSlaneyBreakHz / kSlaneyHzPerMel;  // 15
const double kSlaneyLogStep = std::log(6.4) / 27.0;

}  // namespace

double hz_to_mel(double hz, MelScale scale) {
  if (scale == MelScale::htk) return 2595.0 * std::log10(1.0 + hz / 700.0);
  if (hz < kSlaneyBreakHz) return hz / kSlaneyHzPerMel;
  return kSlaneyBreakMel + std::log(hz / kSlaneyBreakHz) / kSlaneyLogStep;
}

double mel_to_hz(double mel, MelScale scale) {
  if (scale == MelScale::htk) return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0);
  if (mel < kSlaneyBreakMel) return mel * kSlaneyHzPerMel;
  return kSlaneyBreakHz * std::exp(kSlaneyLogStep * (mel - kSlaneyBreakMel));
}

std::vector<double> mel_filterbank(int n_freqs, double f_min, double f_max, int n_mels,
                                   int sample_rate, MelScale scale, MelNorm norm) {
  HEED_CHECK(n_freqs >= 2 && n_mels >= 1 && sample_rate >= 1, "mel filterbank: ", n_freqs,
             " frequency bins and ", n_mels, " mel filters at ", sample_rate,
             " Hz, expected at least 2 bins, 1 filter and a positive rate");
  HEED_CHECK(f_min >= 0 && f_min < f_max, "mel filterbank: f_min ", f_min, " and f_max ", f_max,
             " Hz, expected 0 <= f_min < f_max");
  const double top = static_cast<double>(sample_rate / 2);
  std::vector<double> bin_hz(static_cast<std::size_t>(n_freqs));
  for (int k = 0; k < n_freqs; ++k) bin_hz[k] = top * k / (n_freqs - 1);
  const double m_min = hz_to_mel(f_min, scale), m_max = hz_to_mel(f_max, scale);
  std::vector<double> edge(static_cast<std::size_t>(n_mels) + 2);  // edges and peaks in Hz
  for (int i = 0; i < n_mels + 2; ++i)
    edge[i] = mel_to_hz(m_min + (m_max - m_min) * i / (n_mels + 1), scale);
  std::vector<double> weights(static_cast<std::size_t>(n_freqs) * n_mels, 0.0);
  for (int m = 0; m < n_mels; ++m) {
    const double lo = edge[m], peak = edge[m + 1], hi = edge[m + 2];
    const double scale_by = norm == MelNorm::slaney ? 2.0 / (hi - lo) : 1.0;
    for (int k = 0; k < n_freqs; ++k) {
      const double rising = (bin_hz[k] - lo) / (peak - lo);
      const double falling = (hi - bin_hz[k]) / (hi - peak);
      weights[static_cast<std::size_t>(k) * n_mels + m] =
          std::max(0.0, std::min(rising, falling)) * scale_by;
    }
  }
  return weights;
}

}  // namespace heed
