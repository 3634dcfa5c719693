#include "heed/audio/spec_augment.h"

#include <algorithm>
#include <cmath>

#include "heed/base/error.h"

namespace heed {
namespace {

SpecAugmentMask draw(SpecAugmentMask::Axis axis, std::int64_t size, std::int64_t max_width,
                     Rng& rng) {
  const std::int64_t w = std::clamp<std::int64_t>(max_width, 0, size);
  SpecAugmentMask mask;
  mask.axis = axis;
  mask.width = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(w) + 1));
  mask.start = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(size - mask.width) + 1));
  return mask;
}

}  // namespace

void validate(const SpecAugmentOptions& o) {
  HEED_CHECK(o.freq_masks >= 0 && o.time_masks >= 0, "SpecAugment: ", o.freq_masks,
             " frequency and ", o.time_masks, " time masks, expected counts >= 0");
  HEED_CHECK(o.max_freq_width >= 0 && o.max_time_width >= 0, "SpecAugment: widths ",
             o.max_freq_width, " and ", o.max_time_width, ", expected widths >= 0");
  HEED_CHECK(o.max_time_fraction >= 0 && o.max_time_fraction <= 1,
             "SpecAugment: max_time_fraction ", o.max_time_fraction, ", expected 0 to 1");
}

std::vector<SpecAugmentMask> draw_spec_augment_masks(std::int64_t frames, std::int64_t bins,
                                                     const SpecAugmentOptions& o, Rng& rng) {
  validate(o);
  HEED_CHECK(frames >= 0 && bins >= 0, "SpecAugment: features of ", frames, " x ", bins,
             ", expected sizes >= 0");
  std::vector<SpecAugmentMask> masks;
  for (int i = 0; i < o.freq_masks; ++i)
    masks.push_back(draw(SpecAugmentMask::Axis::frequency, bins, o.max_freq_width, rng));
  const auto time_width = std::min<std::int64_t>(
      o.max_time_width,
      static_cast<std::int64_t>(std::floor(o.max_time_fraction * static_cast<double>(frames))));
  for (int i = 0; i < o.time_masks; ++i)
    masks.push_back(draw(SpecAugmentMask::Axis::time, frames, time_width, rng));
  return masks;
}

Tensor apply_spec_augment_masks(const Tensor& features, const std::vector<SpecAugmentMask>& masks,
                                double value) {
  HEED_CHECK(features.ndim() == 2, "SpecAugment: features of ", features.ndim(),
             " dimensions, expected 2 (frames, bins)");
  Tensor out = features.clone();
  const std::int64_t frames = out.dim(0), bins = out.dim(1);
  for (const SpecAugmentMask& m : masks) {
    const bool time = m.axis == SpecAugmentMask::Axis::time;
    const std::int64_t size = time ? frames : bins;
    HEED_CHECK(m.start >= 0 && m.width >= 0 && m.start + m.width <= size, "SpecAugment: a ",
               time ? "time" : "frequency", " mask [", m.start, ", ", m.start + m.width,
               ") outside 0..", size);
    if (m.width == 0) continue;
    // slice is a view of out: filling it masks out.
    out.slice(time ? 0 : 1, m.start, m.start + m.width).fill(value);
  }
  return out;
}

Tensor spec_augment(const Tensor& features, const SpecAugmentOptions& options, Rng& rng) {
  HEED_CHECK(features.ndim() == 2, "SpecAugment: features of ", features.ndim(),
             " dimensions, expected 2 (frames, bins)");
  const auto masks = draw_spec_augment_masks(features.dim(0), features.dim(1), options, rng);
  return apply_spec_augment_masks(features, masks, options.value);
}

}  // namespace heed
