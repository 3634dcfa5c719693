#pragma once
// A small labelled source for the generated image sets' tests: every item a solid block of
// its own value, so where each one landed can be read off a canvas.
#include <cstdint>

#include "heed/data/idx_file.h"

namespace heed::testing {

inline constexpr std::int64_t kSolidItemSide = 28;

// n items of 28x28; item i is all (i + 1) * 10, label i % 10.
inline IdxLabelledImages solid_items(std::int64_t n) {
  IdxLabelledImages s;
  s.images.count = n;
  s.images.rows = s.images.cols = kSolidItemSide;
  for (std::int64_t i = 0; i < n; ++i) {
    s.images.pixels.insert(s.images.pixels.end(), kSolidItemSide * kSolidItemSide,
                           static_cast<std::uint8_t>((i + 1) * 10));
    s.labels.push_back(static_cast<std::uint8_t>(i % 10));
  }
  return s;
}

}  // namespace heed::testing
