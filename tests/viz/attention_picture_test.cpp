// The cairo pictures of `heed show` (viz/attention_picture.h): the SVG is well-formed and
// names every token, the PNG has the size picture_size promises, long sentences and
// non-ASCII or broken tokens draw, and bad maps are refused.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/viz/attention_picture.h"
#include "heed/viz/svg_text.h"
#include "viz/xml_check.h"

namespace heed::viz {
namespace {

AttentionPicture make_picture(std::vector<std::string> source, std::vector<std::string> output) {
  AttentionPicture p;
  p.title = "Line 1 \xC2\xB7 score -0.5";
  p.subtitle = "a sentence";
  p.source = std::move(source);
  p.output = std::move(output);
  const std::size_t n = p.source.size() * p.output.size();
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t t = i / p.source.size(), j = i % p.source.size();
    p.attention.push_back(t % p.source.size() == j ? 0.9f : 0.1f / static_cast<float>(p.source.size()));
    p.saliency.push_back(0.01f * static_cast<float>((i * 7) % 13));
  }
  return p;
}

std::uint32_t big_endian(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(s[at + k]);
  return v;
}

void expect_png(const std::string& png, int width, int height) {
  ASSERT_GT(png.size(), 33u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(big_endian(png, 16), static_cast<std::uint32_t>(width));
  EXPECT_EQ(big_endian(png, 20), static_cast<std::uint32_t>(height));
}

TEST(AttentionPicture, SvgIsWellFormedAndNamesEveryToken) {
  const AttentionPicture p = make_picture({"le", "chat", "</s>"}, {"the", "cat", "</s>"});
  const std::string svg = picture_svg(p);
  const auto check = testing::check_xml(svg);
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(check.elements.count("svg"), 1u);
  EXPECT_GE(check.elements.at("use"), 6);  // glyphs drawn
  for (const auto& t : p.source) EXPECT_NE(svg.find(xml_escape(t)), std::string::npos) << t;
  for (const auto& t : p.output) EXPECT_NE(svg.find(xml_escape(t)), std::string::npos) << t;
  const PictureSize size = picture_size(p);
  EXPECT_NE(svg.find("width=\"" + std::to_string(size.width) + "px\""), std::string::npos);
}

TEST(AttentionPicture, PngHasTheSizeOfTheLayoutTimesTheScale) {
  const AttentionPicture p = make_picture({"a", "b", "c", "</s>"}, {"c", "b", "a", "</s>"});
  const PictureSize size = picture_size(p);
  EXPECT_GT(size.width, 100);
  EXPECT_GT(size.height, 100);
  expect_png(picture_png(p, 1.0), size.width, size.height);
  expect_png(picture_png(p, 2.0), 2 * size.width, 2 * size.height);
  expect_png(picture_png(p, 1.5), (3 * size.width + 1) / 2, (3 * size.height + 1) / 2);
}

TEST(AttentionPicture, SixtyTokenSentenceStaysCompact) {
  std::vector<std::string> source, output;
  for (int i = 0; i < 64; ++i) source.push_back("token" + std::to_string(i));
  source.push_back("an-extraordinarily-long-token-that-must-be-shortened");
  for (int i = 0; i < 61; ++i) output.push_back("out" + std::to_string(i));
  const AttentionPicture p = make_picture(source, output);
  const PictureSize size = picture_size(p);
  // 20 px cells; upright source labels take a label's width above the grid, not more; the
  // two maps one above the other rather than 2,800 px side by side.
  EXPECT_LT(size.width, 65 * 20 + 300);
  EXPECT_LT(size.height, 2 * (61 * 20 + 250));
  EXPECT_GT(size.height, 2 * 61 * 20);
  const std::string svg = picture_svg(p);
  EXPECT_TRUE(testing::check_xml(svg).ok());
  expect_png(picture_png(p, 1.0), size.width, size.height);
}

TEST(AttentionPicture, NonAsciiAndBrokenTokensDraw) {
  const AttentionPicture p = make_picture(
      {"caf\xC3\xA9", "\xC3\xBC" "ber", "Stra\xC3\x9F" "e", "\xD0\x9F\xD1\x80\xD0\xB8\xD0\xB2\xD0\xB5\xD1\x82",
       "\xCE\xB1\xCE\xB2", "", " ", "bad\xFF", "a<b&c", "</s>"},
      {"\xD0\xBC\xD0\xB8\xD1\x80", "\xC3\xA9t\xC3\xA9", "</s>"});
  const std::string svg = picture_svg(p);
  const auto check = testing::check_xml(svg);
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_NE(svg.find("Stra\xC3\x9F" "e"), std::string::npos);
  EXPECT_NE(svg.find("a&lt;b&amp;c"), std::string::npos);
  const PictureSize size = picture_size(p);
  expect_png(picture_png(p, 1.0), size.width, size.height);
}

TEST(AttentionPicture, SaliencyAloneForAModelWithoutAttention) {
  std::vector<std::string> tokens;
  for (int i = 0; i < 20; ++i) tokens.push_back("w" + std::to_string(i));
  AttentionPicture both = make_picture(tokens, tokens);
  AttentionPicture alone = both;
  alone.attention.clear();
  const PictureSize a = picture_size(both), b = picture_size(alone);
  EXPECT_LT(b.width, a.width);  // one map instead of two
  EXPECT_GT(b.height, a.height);  // and a line that says why
  EXPECT_TRUE(testing::check_xml(picture_svg(alone)).ok());
  AttentionPicture attention_only = both;
  attention_only.saliency.clear();
  EXPECT_LT(picture_size(attention_only).width, a.width);
}

TEST(AttentionPicture, CopyAttentionAddsAPGenColumnAndALegend) {
  AttentionPicture p = make_picture({"my", "name", "is", "zuxaqor", "</s>"}, {"hello", "zuxaqor", "</s>"});
  const PictureSize plain = picture_size(p);
  p.p_gen = {0.9f, 0.02f, 0.5f};
  p.copied = {0, 1, 0};
  const PictureSize copy = picture_size(p);
  EXPECT_GT(copy.width, plain.width);    // the p_gen column
  EXPECT_GT(copy.height, plain.height);  // the legend line
  const std::string svg = picture_svg(p);
  ASSERT_TRUE(testing::check_xml(svg).ok());
  expect_png(picture_png(p, 1.0), copy.width, copy.height);
  // A p_gen per output token, on [0, 1], and only beside an attention map.
  p.p_gen = {0.9f, 0.02f};
  EXPECT_THROW(picture_size(p), Error);
  p.p_gen = {0.9f, 1.5f, 0.5f};
  EXPECT_THROW(picture_size(p), Error);
  p.p_gen = {0.9f, 0.02f, 0.5f};
  p.copied = {0, 1};
  EXPECT_THROW(picture_size(p), Error);
  p.copied = {0, 1, 0};
  p.attention.clear();
  EXPECT_THROW(picture_size(p), Error);
}

// The colour cairo's SVG surface writes for the coverage bars past 1 (kCopied, orange).
bool has_orange(const std::string& svg) { return svg.find("fill:rgb(85%,37%,0%)") != std::string::npos; }

TEST(AttentionPicture, CoverageStripUnderTheMapMarksTokensAttendedTwice) {
  // "the" is attended by two output rows in full: its coverage is 2, past the line at 1.
  AttentionPicture p = make_picture({"the", "cat", "</s>"}, {"the", "the", "</s>"});
  p.attention = {1.0f, 0.0f, 0.0f,  //
                 1.0f, 0.0f, 0.0f,  //
                 0.0f, 0.0f, 1.0f};
  const PictureSize plain = picture_size(p);
  EXPECT_FALSE(has_orange(picture_svg(p)));
  p.coverage = true;
  const PictureSize covered = picture_size(p);
  EXPECT_GE(covered.height, plain.height + 56);  // the strip (and the legend line)
  const std::string svg = picture_svg(p);
  ASSERT_TRUE(testing::check_xml(svg).ok());
  EXPECT_TRUE(has_orange(svg));
  expect_png(picture_png(p, 1.0), covered.width, covered.height);
  // Every column at most once: no orange bar.
  p.attention = {1.0f, 0.0f, 0.0f, 0.0f, 1.0f, 0.0f, 0.0f, 0.0f, 1.0f};
  EXPECT_FALSE(has_orange(picture_svg(p)));
  // The strip sums the attention map: without one there is nothing to sum.
  p.attention.clear();
  EXPECT_THROW(picture_size(p), Error);
}

TEST(AttentionPicture, RefusesBadMaps) {
  AttentionPicture p = make_picture({"x", "</s>"}, {"x", "</s>"});
  p.attention.pop_back();
  EXPECT_THROW(picture_size(p), Error);
  p = make_picture({"x", "</s>"}, {"x", "</s>"});
  p.saliency[1] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_THROW(picture_svg(p), Error);
  p = make_picture({"x", "</s>"}, {"x", "</s>"});
  p.attention.clear();
  p.saliency.clear();
  EXPECT_THROW(picture_png(p), Error);
  p = make_picture({"x", "</s>"}, {"x", "</s>"});
  EXPECT_THROW(picture_png(p, 0.0), Error);
  p.output.clear();
  EXPECT_THROW(picture_size(p), Error);
}

}  // namespace
}  // namespace heed::viz
