// The spectrogram attention picture (viz/spectrogram_attention_picture.h): each annotation's
// weight spread over the frames it covers (the pyramid), the spectrogram's levels (high bins on
// top, the loudest 70 dB), one row per symbol under the spectrogram in a well-formed SVG, and
// the refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/viz/spectrogram_attention_picture.h"
#include "viz/png_check.h"
#include "viz/xml_check.h"

namespace heed::viz {
namespace {

// 10 frames of 4 bins, 4 frames per annotation (3 annotations, the last over 2 frames).
SpectrogramAttentionPicture make_picture(std::size_t symbols) {
  SpectrogramAttentionPicture p;
  p.frames = 10;
  p.mels = 4;
  for (std::int64_t t = 0; t < 10; ++t)
    for (std::int64_t b = 0; b < 4; ++b) p.log_mel.push_back(static_cast<float>(-b));
  p.seconds_per_frame = 0.01;
  p.frames_per_annotation = 4;
  for (std::size_t s = 0; s < symbols; ++s) {
    p.symbols.push_back("sym" + std::to_string(s));
    std::vector<float> a(3, 0.0f);
    a[s % 3] = 1.0f;
    p.attention.push_back(a);
  }
  p.title = "tones.wav \xC2\xB7 do re";
  return p;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(SpectrogramAttention, EachWeightCoversItsAnnotationsFrames) {
  EXPECT_EQ(annotations_over(10, 4), 3);
  EXPECT_EQ(annotations_over(8, 4), 2);
  EXPECT_EQ(annotations_over(1, 8), 1);
  EXPECT_EQ(annotations_over(7, 1), 7);
  const std::vector<float> w = attention_per_frame({0.5f, 0.25f, 0.125f}, 10, 4);
  const std::vector<float> expected = {0.5f,  0.5f,  0.5f,  0.5f,   0.25f,
                                       0.25f, 0.25f, 0.25f, 0.125f, 0.125f};
  EXPECT_EQ(w, expected);
  EXPECT_EQ(attention_per_frame({0.5f, 0.5f}, 2, 1), (std::vector<float>{0.5f, 0.5f}));
  try {
    attention_per_frame({1.0f, 0.0f}, 10, 4);
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2 weights for 10 frames of 4 per annotation, expected 3"),
              std::string::npos)
        << e.what();
  }
}

TEST(SpectrogramAttention, LevelsPutHighBinsOnTopAndKeepTheLoudest70Db) {
  SpectrogramAttentionPicture p = make_picture(0);
  p.log_mel[0] = 4.0f;                      // frame 0, bin 0: the loudest
  p.log_mel[4 * 5 + 3] = 4.0f - 100.0f;     // frame 5, bin 3: far below the range
  const std::vector<float> l = spectrogram_levels(p);
  ASSERT_EQ(l.size(), 40u);
  EXPECT_FLOAT_EQ(l[3 * 10 + 0], 1.0f);     // bin 0 is the bottom row
  EXPECT_FLOAT_EQ(l[0 * 10 + 5], 0.0f);     // bin 3 the top row; clamped at 0
  // Bin 1 of frame 1 is -1: (-1 - (4 - 16)) / 16.
  EXPECT_FLOAT_EQ(l[2 * 10 + 1], 11.0f / 16.0f);
}

TEST(SpectrogramAttention, OneRowPerSymbolUnderTheSpectrogramAndAWellFormedSvg) {
  for (const std::size_t symbols : {0u, 1u, 4u}) {
    const SpectrogramAttentionPicture p = make_picture(symbols);
    const std::string svg = spectrogram_attention_svg(p);
    const testing::XmlCheck x = testing::check_xml(svg);
    EXPECT_TRUE(x.ok()) << x.error;
    // The spectrogram, then one painted row per symbol.
    EXPECT_EQ(count(svg, "<image "), symbols + 1) << symbols;
    EXPECT_NE(svg.find("<title>tones.wav \xC2\xB7 do re</title>"), std::string::npos);
    EXPECT_NE(svg.find(symbols ? "symbols: sym0" : "symbols:"), std::string::npos);
    const std::string png = spectrogram_attention_png(p, 1.0);
    const testing::PngSize one = testing::png_size(png);
    const testing::PngSize two = testing::png_size(spectrogram_attention_png(p, 2.0));
    EXPECT_EQ(two.width, 2 * one.width);
    EXPECT_EQ(two.height, 2 * one.height);
  }
  // Each symbol adds a row: the picture grows by the row and its gap (16 + 3 px) once the rows
  // are taller than the colour bar.
  const auto h = [](std::size_t n) {
    return testing::png_size(spectrogram_attention_png(make_picture(n), 1.0)).height;
  };
  EXPECT_EQ(h(12) - h(11), 19u);
}

TEST(SpectrogramAttention, RefusesWhatItCannotDraw) {
  auto expect_error = [](const SpectrogramAttentionPicture& p, const std::string& words) {
    try {
      spectrogram_attention_svg(p);
      ADD_FAILURE() << "expected an error with: " << words;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  SpectrogramAttentionPicture p = make_picture(2);
  p.attention[1].pop_back();
  expect_error(p, "symbol 1 ('sym1') has 2 weights for 3 annotations (10 frames, 4 each)");
  p = make_picture(2);
  p.symbols.pop_back();
  expect_error(p, "2 attention rows for 1 symbols");
  p = make_picture(1);
  p.attention[0][2] = -0.5f;
  expect_error(p, "weight -0.5 is not a finite non-negative number");
  p = make_picture(1);
  p.log_mel.resize(7);
  expect_error(p, "7 values for 10 frames of 4 bins");
  p = make_picture(1);
  p.frames_per_annotation = 0;
  expect_error(p, "0 frames per annotation, expected at least 1");
}

}  // namespace
}  // namespace heed::viz
