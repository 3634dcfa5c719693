#pragma once
// Background noise for generated utterances (docs/DATA.md, "Spoken digits"), drawn from
// heed's Rng so that a seed gives the same noise on every machine: no noise files needed.
#include <cstddef>
#include <span>
#include <vector>

#include "heed/base/enum_names.h"
#include "heed/base/random.h"

namespace heed {

// white: independent Gaussian samples (a flat spectrum). pink: a spectrum falling 3 dB per
// octave (power ~ 1/f), by the Voss-McCartney method: the sum of 16 Gaussian values, value r
// drawn anew every 2^r samples, and one drawn every sample.
enum class NoiseKind { white, pink };
inline constexpr EnumName<NoiseKind> kNoiseKindNames[] = {{NoiseKind::white, "white"},
                                                          {NoiseKind::pink, "pink"}};
constexpr std::span<const EnumName<NoiseKind>> enum_names(NoiseKind) { return kNoiseKindNames; }

// n samples of noise with mean 0 and mean square 1, exactly, over the n samples (one sample
// is 0).
std::vector<double> make_noise(NoiseKind kind, std::size_t n, Rng& rng);

}  // namespace heed
