// The picture of every layer's heads (viz/heads_picture.h): a well-formed SVG naming the
// tokens, a PNG, long sentences (cells too small for labels) and bad maps refused.
#include "heed/viz/heads_picture.h"

#include <gtest/gtest.h>

#include <limits>

#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/viz/svg_text.h"
#include "viz/xml_check.h"

namespace heed::viz {
namespace {

HeadsPicture make_picture(std::size_t m, std::size_t n, std::int64_t heads, std::size_t layers) {
  HeadsPicture p;
  p.title = "Line 1";
  p.subtitle = "abc \xE2\x86\x92 cba";
  for (std::size_t j = 0; j < m; ++j) p.source.push_back("s" + std::to_string(j));
  for (std::size_t i = 0; i < n; ++i) p.output.push_back("o" + std::to_string(i));
  p.heads = heads;
  for (std::size_t l = 0; l < layers; ++l) {
    std::vector<float> w;
    for (std::int64_t h = 0; h < heads; ++h)
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < m; ++j)
          w.push_back((i + j + static_cast<std::size_t>(h) + l) % m == 0 ? 1.0f : 0.0f);
    p.layers.push_back(w);
  }
  return p;
}

TEST(HeadsPicture, SvgIsWellFormedAndNamesTheTokens) {
  const HeadsPicture p = make_picture(4, 3, 2, 2);
  const std::string svg = heads_svg(p);
  const auto check = testing::check_xml(svg);
  ASSERT_TRUE(check.ok()) << check.error;
  for (const auto& t : p.source) EXPECT_NE(svg.find(xml_escape(t)), std::string::npos) << t;
  for (const auto& t : p.output) EXPECT_NE(svg.find(xml_escape(t)), std::string::npos) << t;
  const std::string png = heads_png(p, 1.0);
  ASSERT_GT(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST(HeadsPicture, TheAverageMapIsTheMeanOfTheHeadsAndIsDrawn) {
  HeadsPicture p = make_picture(2, 1, 2, 1);
  p.layers[0] = {0.25f, 0.75f, 0.75f, 0.25f};  // head 1 then head 2, 1 x 2 each
  EXPECT_EQ(heads_average(p, 0), (std::vector<float>{0.5f, 0.5f}));
  EXPECT_THROW(heads_average(p, 1), Error);
  p.axes = "rows: output \xC2\xB7 columns: source";
  const auto check = testing::check_xml(heads_svg(p));
  ASSERT_TRUE(check.ok()) << check.error;
  // cairo draws the text as glyphs: the average shows as a third map's width. Two heads and
  // their average are three maps, one head is one map: the picture is two maps narrower.
  const auto width = [](const HeadsPicture& q) {
    const std::string svg = heads_svg(q);
    const std::size_t at = svg.find("width=\"") + 7;
    return std::stod(svg.substr(at, svg.find('"', at) - at));
  };
  const double two = width(p);
  p.heads = 3;
  p.layers[0] = {0.25f, 0.75f, 0.75f, 0.25f, 0.5f, 0.5f};
  const double three = width(p);
  p.heads = 1;  // one head: no average beside it
  p.layers[0] = {0.25f, 0.75f};
  const double one = width(p);
  EXPECT_GT(three, two);
  EXPECT_NEAR(two - one, 2 * (three - two), 1.0);  // each slot rounded up to a pixel once
}

TEST(HeadsPicture, LongSentencesDrawWithoutLabels) {
  EXPECT_NO_THROW(heads_svg(make_picture(40, 30, 4, 2)));
}

TEST(HeadsPicture, BadMapsAreRefused) {
  HeadsPicture p = make_picture(3, 2, 2, 1);
  p.layers[0].pop_back();
  EXPECT_THROW(heads_svg(p), Error);
  p = make_picture(3, 2, 2, 1);
  p.layers[0][0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(heads_svg(p), Error);
  p = make_picture(3, 2, 2, 1);
  p.layers.clear();
  EXPECT_THROW(heads_svg(p), Error);
  p = make_picture(3, 2, 2, 1);
  p.source.clear();
  EXPECT_THROW(check_heads_picture(p), Error);
}

}  // namespace
}  // namespace heed::viz
