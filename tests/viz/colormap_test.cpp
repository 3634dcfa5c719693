// Viridis and magma tables, interpolation, clamping, the luminance used for text contrast, and the
// categorical palette for chart lines.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "heed/viz/colormap.h"

namespace heed::viz {
namespace {

TEST(Colormap, EndsAndMiddleAreViridis) {
  EXPECT_EQ(hex(viridis(0.0)), "#440154");
  EXPECT_EQ(hex(viridis(1.0)), "#fde725");
  EXPECT_EQ(hex(viridis(0.5)), "#21918c");
  EXPECT_EQ(hex(viridis(0.1)), "#482475");
}

TEST(Colormap, InterpolatesBetweenStops) {
  // Halfway between #440154 and #482475.
  EXPECT_EQ(viridis(0.05), (Rgb{0x46, 0x13, 0x65}));
}

TEST(Colormap, ClampsOutOfRangeAndNaN) {
  EXPECT_EQ(viridis(-3.0), viridis(0.0));
  EXPECT_EQ(viridis(7.0), viridis(1.0));
  EXPECT_EQ(viridis(std::numeric_limits<double>::quiet_NaN()), viridis(0.0));
}

TEST(Colormap, MagmaEndsMiddleClampsAndRisesInLuminance) {
  EXPECT_EQ(hex(magma(0.0)), "#000004");
  EXPECT_EQ(hex(magma(0.5)), "#b73779");
  EXPECT_EQ(hex(magma(1.0)), "#fcfdbf");
  EXPECT_EQ(magma(0.05), (Rgb{0x0a, 0x07, 0x1d}));  // halfway between #000004 and #140e36
  EXPECT_EQ(magma(-1.0), magma(0.0));
  EXPECT_EQ(magma(std::numeric_limits<double>::quiet_NaN()), magma(0.0));
  double previous = -1.0;
  for (int k = 0; k <= 40; ++k) {
    const double l = luminance(magma(k / 40.0));
    EXPECT_GT(l, previous) << "t = " << k / 40.0;
    previous = l;
  }
}

TEST(Colormap, LuminanceRisesMonotonically) {
  // The property that makes viridis readable as "more": lighter for larger weights.
  double previous = -1.0;
  for (int k = 0; k <= 40; ++k) {
    const double l = luminance(viridis(k / 40.0));
    EXPECT_GT(l, previous) << "t = " << k / 40.0;
    previous = l;
  }
  EXPECT_NEAR(luminance(Rgb{255, 255, 255}), 1.0, 1e-12);
  EXPECT_NEAR(luminance(Rgb{0, 0, 0}), 0.0, 1e-12);
}

}  // namespace
}  // namespace heed::viz

namespace heed::viz {
namespace {

TEST(Categorical, OkabeItoColoursThatCycle) {
  EXPECT_EQ(hex(categorical(0)), "#0072b2");
  EXPECT_EQ(hex(categorical(1)), "#d55e00");
  EXPECT_EQ(categorical(7), categorical(0));
  for (std::size_t i = 0; i + 1 < 7; ++i) EXPECT_NE(categorical(i), categorical(i + 1));
}

}  // namespace
}  // namespace heed::viz
