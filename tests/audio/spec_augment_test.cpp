// SpecAugment's masks: their counts, widths within the limits (the time limit also a share of
// the frames), starts inside the features, the same masks from the same seed, and the
// masked cells set while the others are kept.
#include "heed/audio/spec_augment.h"

#include <gtest/gtest.h>

#include <set>

#include "heed/base/error.h"

namespace heed {
namespace {

using Axis = SpecAugmentMask::Axis;

TEST(SpecAugment, DrawsTheMasksAsked) {
  SpecAugmentOptions o;
  o.freq_masks = 3;
  o.max_freq_width = 10;
  o.time_masks = 4;
  o.max_time_width = 30;
  o.max_time_fraction = 0.1;  // 200 frames: at most 20
  Rng rng(5);
  std::set<std::int64_t> freq_widths, time_widths;
  for (int draw = 0; draw < 500; ++draw) {
    const auto masks = draw_spec_augment_masks(200, 80, o, rng);
    ASSERT_EQ(masks.size(), 7u);
    for (std::size_t i = 0; i < masks.size(); ++i) {
      const SpecAugmentMask& m = masks[i];
      EXPECT_EQ(m.axis, i < 3 ? Axis::frequency : Axis::time);
      const std::int64_t size = m.axis == Axis::time ? 200 : 80;
      EXPECT_GE(m.start, 0);
      EXPECT_LE(m.start + m.width, size);
      (m.axis == Axis::time ? time_widths : freq_widths).insert(m.width);
    }
  }
  // Every width from 0 to the limit drawn, none beyond.
  EXPECT_EQ(*freq_widths.begin(), 0);
  EXPECT_EQ(*freq_widths.rbegin(), 10);
  EXPECT_EQ(freq_widths.size(), 11u);
  EXPECT_EQ(*time_widths.begin(), 0);
  EXPECT_EQ(*time_widths.rbegin(), 20);
  EXPECT_EQ(time_widths.size(), 21u);
}

TEST(SpecAugment, WidthsNeverExceedTheFeatures) {
  SpecAugmentOptions o;
  o.max_freq_width = 100;  // more than the 8 bins
  o.max_time_width = 100;
  o.max_time_fraction = 1.0;
  Rng rng(1);
  for (int draw = 0; draw < 200; ++draw)
    for (const SpecAugmentMask& m : draw_spec_augment_masks(3, 8, o, rng))
      EXPECT_LE(m.start + m.width, m.axis == Axis::time ? 3 : 8);
  // No frames: time masks of width 0 at 0.
  for (const SpecAugmentMask& m : draw_spec_augment_masks(0, 8, o, rng)) {
    if (m.axis == Axis::time) {
      EXPECT_EQ(m.start + m.width, 0);
    }
  }
}

TEST(SpecAugment, SameSeedSameMasks) {
  const SpecAugmentOptions o;
  Rng a(42), b(42), c(43);
  const Tensor x = Tensor::full({120, 80}, 1.0);
  const Tensor ya = spec_augment(x, o, a), yb = spec_augment(x, o, b), yc = spec_augment(x, o, c);
  EXPECT_EQ(ya.to_vector(), yb.to_vector());
  EXPECT_NE(ya.to_vector(), yc.to_vector());
}

TEST(SpecAugment, SetsTheMaskedCellsAndKeepsTheOthers) {
  Tensor x = Tensor::empty({6, 5}, DType::f64);
  for (std::int64_t t = 0; t < 6; ++t)
    for (std::int64_t b = 0; b < 5; ++b) x.set({t, b}, 10.0 * t + b + 1);
  const std::vector<SpecAugmentMask> masks = {{Axis::frequency, 1, 2}, {Axis::time, 4, 1},
                                              {Axis::time, 0, 0}};
  const Tensor y = apply_spec_augment_masks(x, masks, -3.0);
  for (std::int64_t t = 0; t < 6; ++t)
    for (std::int64_t b = 0; b < 5; ++b) {
      const bool masked = (b == 1 || b == 2) || t == 4;
      EXPECT_EQ(y.at({t, b}), masked ? -3.0 : x.at({t, b})) << t << "," << b;
    }
  EXPECT_EQ(x.at({4, 0}), 41.0);  // the input is left as it was
  EXPECT_EQ(y.dtype(), DType::f64);
  EXPECT_THROW(apply_spec_augment_masks(x, {{Axis::time, 5, 2}}, 0.0), Error);
}

TEST(SpecAugment, NoMasksNoChange) {
  SpecAugmentOptions o;
  o.freq_masks = o.time_masks = 0;
  Rng rng(3);
  const Tensor x = Tensor::from({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(spec_augment(x, o, rng).to_vector(), x.to_vector());
  EXPECT_EQ(rng.next(), Rng(3).next());  // nothing drawn
}

TEST(SpecAugment, RefusesBadOptions) {
  SpecAugmentOptions o;
  o.time_masks = -1;
  EXPECT_THROW(validate(o), Error);
  o = {};
  o.max_freq_width = -2;
  EXPECT_THROW(validate(o), Error);
  o = {};
  o.max_time_fraction = 1.5;
  try {
    validate(o);
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "SpecAugment: max_time_fraction 1.5, expected 0 to 1");
  }
  Rng rng(1);
  EXPECT_THROW(spec_augment(Tensor::zeros({4}), SpecAugmentOptions{}, rng), Error);
}

}  // namespace
}  // namespace heed
