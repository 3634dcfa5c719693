#pragma once
// The mel filterbank of the log-mel features (docs/DATA.md, "Audio"): triangular filters
// equally spaced on the mel scale, defined as torchaudio.functional.melscale_fbanks defines
// them, so that heed's features equal torchaudio's MelSpectrogram (the golden test).
#include <span>
#include <vector>

#include "heed/base/enum_names.h"

namespace heed {

// htk: mel = 2595 log10(1 + f / 700). slaney: linear below 1 kHz (3 mels per 200 Hz), then
// logarithmic, 27 mels per factor 6.4 (the Auditory Toolbox's scale).
enum class MelScale { htk, slaney };
inline constexpr EnumName<MelScale> kMelScaleNames[] = {{MelScale::htk, "htk"},
                                                        {MelScale::slaney, "slaney"}};
constexpr std::span<const EnumName<MelScale>> enum_names(MelScale) { return kMelScaleNames; }

// none: each filter peaks at 1. slaney: each filter divided by its width in Hz over 2, so
// that every filter has the same area.
enum class MelNorm { none, slaney };
inline constexpr EnumName<MelNorm> kMelNormNames[] = {{MelNorm::none, "none"},
                                                      {MelNorm::slaney, "slaney"}};
constexpr std::span<const EnumName<MelNorm>> enum_names(MelNorm) { return kMelNormNames; }

double hz_to_mel(double hz, MelScale scale);
double mel_to_hz(double mel, MelScale scale);

// The weights of n_mels filters over the n_freqs bins of a one-sided spectrum, bin k at
// k * (sample_rate / 2) / (n_freqs - 1) Hz (sample_rate / 2 rounded down, as torchaudio),
// row-major (n_freqs, n_mels). The filters' edges and peaks are n_mels + 2 points equally
// spaced in mels from f_min to f_max. Throws heed::Error unless n_freqs >= 2, n_mels >= 1
// and 0 <= f_min < f_max.
std::vector<double> mel_filterbank(int n_freqs, double f_min, double f_max, int n_mels,
                                   int sample_rate, MelScale scale, MelNorm norm);

}  // namespace heed
