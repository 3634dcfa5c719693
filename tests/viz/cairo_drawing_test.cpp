// The pictures' text (viz/cairo_drawing.h): laid out by Pango, so a character DejaVu Sans
// lacks is taken from another installed font instead of being drawn as a box, and the
// measured width is the drawn one.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "heed/viz/cairo_drawing.h"

namespace heed::viz::cairo_drawing {
namespace {

// The CJK font tools/setup.sh installs (Debian's fonts-wqy-microhei, which the .deb
// recommends).
constexpr const char* kCjkFont = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";

TEST(CairoDrawing, LatinGreekCyrillicComeFromTheDefaultFont) {
  EXPECT_EQ(missing_glyphs("Stra\xC3\x9F" "e caf\xC3\xA9 \xCE\xB1\xCE\xB2 \xD0\xBC\xD0\xB8\xD1\x80"), 0u);
}

TEST(CairoDrawing, ACharacterNoFontHasIsCountedAsMissing) {
  // U+E000 (private use) and U+10FFFD: no font of a Debian system draws them, so this is the
  // count that must be 0 for a text to draw without boxes.
  EXPECT_EQ(missing_glyphs("a\xEE\x80\x80" "b\xF4\x8F\xBF\xBD"), 2u);
}

TEST(CairoDrawing, JapaneseAndChineseDrawFromTheCjkFontWhenItIsInstalled) {
  if (!std::filesystem::exists(kCjkFont))
    GTEST_SKIP() << kCjkFont << " is not installed (tools/setup.sh installs fonts-wqy-microhei)";
  EXPECT_EQ(missing_glyphs("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E"), 0u);  // 日本語
  EXPECT_EQ(missing_glyphs("\xE4\xBD\xA0\xE5\xA5\xBD"), 0u);              // 你好
  EXPECT_EQ(missing_glyphs("\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4"), 0u);  // 한국어
}

TEST(CairoDrawing, WidthGrowsWithTheTextAndTheSize) {
  const Measure m;
  const double one = advance(m.get(), "attention", 12.0);
  EXPECT_GT(one, 30.0);
  EXPECT_LT(one, 90.0);
  EXPECT_NEAR(advance(m.get(), "attention", 24.0), 2 * one, 0.05 * one);
  EXPECT_GT(advance(m.get(), "attention", 12.0, true), one);  // bold is wider
  EXPECT_NEAR(advance(m.get(), "attentionattention", 12.0), 2 * one, 0.05 * one);
  EXPECT_EQ(advance(m.get(), "", 12.0), 0.0);
}

}  // namespace
}  // namespace heed::viz::cairo_drawing
