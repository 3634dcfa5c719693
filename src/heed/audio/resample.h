#pragma once
// Resampling audio to the model's rate with Debian's libsoxr (docs/DATA.md, "Audio": why
// soxr): its 'high quality' linear-phase filter (20-bit precision, pass band to 91% of the
// lower Nyquist frequency), one thread, the whole signal at once.
#include <span>
#include <vector>

#include "heed/audio/wav_file.h"

namespace heed {

// samples at from_rate, resampled to to_rate: round(n * to_rate / from_rate) samples (a copy
// when the rates are equal). Throws heed::Error for a rate below 1.
std::vector<float> resample(std::span<const float> samples, int from_rate, int to_rate);

// The audio at to_rate.
Audio resample(const Audio& audio, int to_rate);

}  // namespace heed
