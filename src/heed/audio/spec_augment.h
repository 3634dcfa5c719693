#pragma once
// SpecAugment's masks (Park et al. 2019, without time warping; docs/DATA.md, "Audio"): a
// training option that hides random bands of mel bins and random spans of frames, so that a
// model cannot lean on any one of them. A pure function of the features and the Rng.
#include <cstdint>
#include <vector>

#include "heed/base/random.h"
#include "heed/tensor/tensor.h"

namespace heed {

struct SpecAugmentOptions {
  int freq_masks = 2;               // F masks over the mel bins
  int max_freq_width = 27;          // each of width 0..max_freq_width bins
  int time_masks = 2;               // T masks over the frames
  int max_time_width = 40;          // each of width 0..max_time_width frames
  double max_time_fraction = 0.2;   // and at most this share of the utterance's frames
  double value = 0.0;               // what a masked cell becomes (0: the mean, once normalised)
};

// Throws heed::Error naming the field unless counts and widths are >= 0 and the fraction in
// [0, 1].
void validate(const SpecAugmentOptions& options);

// One mask: `width` consecutive mel bins (frequency) or frames (time) from `start`.
struct SpecAugmentMask {
  enum class Axis { frequency, time };
  Axis axis = Axis::frequency;
  std::int64_t start = 0, width = 0;
};

// The masks for features of frames x bins, drawn from rng in this order: the frequency masks,
// then the time masks; for each, its width uniform in 0..W, where W is max_freq_width (at most
// bins), or for time the smaller of max_time_width and floor(max_time_fraction * frames), then
// its start uniform in 0..size - width (Rng::below). Masks may overlap.
std::vector<SpecAugmentMask> draw_spec_augment_masks(std::int64_t frames, std::int64_t bins,
                                                     const SpecAugmentOptions& options, Rng& rng);

// A copy of features (frames, bins), float32 or float64, with the masks set to value.
Tensor apply_spec_augment_masks(const Tensor& features, const std::vector<SpecAugmentMask>& masks,
                                double value);

// draw_spec_augment_masks then apply_spec_augment_masks: the augmented copy.
Tensor spec_augment(const Tensor& features, const SpecAugmentOptions& options, Rng& rng);

}  // namespace heed
