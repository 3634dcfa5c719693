// SVG heat maps: well-formed XML, one rect per weight, viridis at the ends, escaped
// labels, slanted column labels when tokens are long, values, side-by-side panels.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>

#include "heed/base/error.h"
#include "heed/viz/heatmap_svg.h"
#include "viz/xml_check.h"

namespace heed::viz {
namespace {

using heed::testing::check_xml;

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (std::size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

double svg_width(const std::string& svg) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(svg, m, std::regex("<svg[^>]* width=\"([0-9.]+)\"")));
  return std::stod(m[1]);
}

HeatmapPanel small_panel() {
  HeatmapPanel p;
  p.columns = {"le", "chat", "</s>"};
  p.rows = {"the", "cat", "</s>"};
  p.values = {0.9f, 0.05f, 0.05f, 0.1f, 0.8f, 0.1f, 0.0f, 0.0f, 1.0f};
  return p;
}

TEST(HeatmapSvg, IsWellFormedWithOneCellPerWeight) {
  HeatmapOptions o;
  o.title = "Sentence 0";
  o.subtitle = "rows: output";
  const std::string svg = heatmap_svg(small_panel(), o);
  const auto check = check_xml(svg);
  ASSERT_TRUE(check.ok()) << check.error << "\n" << svg;
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
  EXPECT_EQ(count(svg, "class=\"cell\""), 9);
  EXPECT_EQ(count(svg, "class=\"col-label\""), 3);
  EXPECT_EQ(count(svg, "class=\"row-label\""), 3);
  EXPECT_EQ(count(svg, "class=\"colorbar\""), 1);
  EXPECT_EQ(count(svg, "class=\"tick-label\""), 5);
  EXPECT_EQ(count(svg, "class=\"value\""), 0);  // only when asked
  EXPECT_EQ(check.elements.at("svg"), 1);
  // Title, subtitle, ticks 0 .. 1 as text.
  const auto& t = check.texts;
  for (const char* want : {"Sentence 0", "rows: output", "0", "0.25", "0.5", "0.75", "1"}) {
    EXPECT_NE(std::find(t.begin(), t.end(), want), t.end()) << want;
  }
}

TEST(HeatmapSvg, ColoursZeroAndOneWithViridisEnds) {
  HeatmapPanel p;
  p.columns = {"a", "b"};
  p.rows = {"x"};
  p.values = {0.0f, 1.0f};
  const std::string svg = heatmap_svg(p, {});
  EXPECT_NE(svg.find("class=\"cell\" x=\"" ), std::string::npos);
  std::smatch m;
  std::string rest = svg;
  std::vector<std::string> fills;
  const std::regex cell("class=\"cell\"[^>]* fill=\"(#[0-9a-f]{6})\"");
  while (std::regex_search(rest, m, cell)) {
    fills.push_back(m[1]);
    rest = m.suffix();
  }
  ASSERT_EQ(fills.size(), 2u);
  EXPECT_EQ(fills[0], "#440154");
  EXPECT_EQ(fills[1], "#fde725");
  // Values outside the range are clamped, not rejected.
  p.values = {-0.5f, 2.0f};
  const std::string clamped = heatmap_svg(p, {});
  EXPECT_NE(clamped.find("fill=\"#440154\""), std::string::npos);
  EXPECT_NE(clamped.find("fill=\"#fde725\""), std::string::npos);
}

TEST(HeatmapSvg, EscapesAnyToken) {
  HeatmapPanel p;
  p.columns = {"<b>", "AT&T", "\"q\"", "it's", "\xE6\x97\xA5\xE6\x9C\xAC", "bad\xFF"};
  p.rows = {"</svg>", "&amp;"};
  p.values.assign(12, 0.5f);
  HeatmapOptions o;
  o.title = "a < b & \"c\"";
  const std::string svg = heatmap_svg(p, o);
  const auto check = check_xml(svg);
  ASSERT_TRUE(check.ok()) << check.error;
  const auto& t = check.texts;
  for (const std::string want : {"<b>", "AT&T", "\"q\"", "it's", "\xE6\x97\xA5\xE6\x9C\xAC",
                                 "bad\xEF\xBF\xBD", "</svg>", "&amp;", "a < b & \"c\""}) {
    EXPECT_NE(std::find(t.begin(), t.end(), want), t.end()) << want;
  }
  EXPECT_NE(svg.find("&lt;/svg&gt;"), std::string::npos);
  EXPECT_NE(svg.find("&amp;amp;"), std::string::npos);
  // Tooltips name output and source token with the weight.
  EXPECT_NE(std::find(t.begin(), t.end(), "&amp; \xE2\x86\x90 AT&T: 0.500"), t.end());
}

TEST(HeatmapSvg, SlantsLongColumnLabelsAndGrowsWithThem) {
  HeatmapPanel p = small_panel();
  p.columns = {"a", "b", "c"};  // short enough to stand upright over a 28 px cell
  const std::string plain = heatmap_svg(p, {});
  EXPECT_EQ(plain.find("rotate(-45"), std::string::npos);
  p.columns = {"internationalisation", "b", "c"};
  const std::string slanted = heatmap_svg(p, {});
  EXPECT_EQ(count(slanted, "rotate(-45"), 3);
  EXPECT_TRUE(check_xml(slanted).ok());
  // Longer row labels make room on the left.
  HeatmapPanel q = p;
  q.columns = {"a", "b", "c"};
  q.rows = {"extraordinarily", "cat", "</s>"};
  EXPECT_GT(svg_width(heatmap_svg(q, {})), svg_width(plain));
  // Very long tokens are shortened, the full text kept as a tooltip.
  const std::string token(60, 'x');
  q.rows[0] = token;
  const auto check = check_xml(heatmap_svg(q, {}));
  ASSERT_TRUE(check.ok());
  EXPECT_NE(std::find(check.texts.begin(), check.texts.end(), token), check.texts.end());
  EXPECT_NE(std::find(check.texts.begin(), check.texts.end(),
                      std::string(23, 'x') + "\xE2\x80\xA6"),
            check.texts.end());
}

TEST(HeatmapSvg, PrintsValuesWhenAsked) {
  HeatmapOptions o;
  o.show_values = true;
  const std::string svg = heatmap_svg(small_panel(), o);
  const auto check = check_xml(svg);
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(count(svg, "class=\"value\""), 9);
  const auto& t = check.texts;
  for (const char* want : {".90", ".05", "1.00", ".00"}) {
    EXPECT_NE(std::find(t.begin(), t.end(), want), t.end()) << want;
  }
  // Dark text on the light end of the scale, light text on the dark end.
  EXPECT_NE(svg.find("fill=\"#000000\">1.00<"), std::string::npos);
  EXPECT_NE(svg.find("fill=\"#ffffff\">.00<"), std::string::npos);
}

TEST(HeatmapSvg, SideBySideDrawsBothPanels) {
  HeatmapPanel attention = small_panel();
  attention.title = "attention";
  HeatmapPanel saliency = small_panel();
  saliency.title = "saliency";
  saliency.columns = {"le", "chat", "</s>"};
  saliency.vmin = -1.0;
  const std::string one = heatmap_svg(attention, {});
  const std::string svg = heatmaps_side_by_side_svg(attention, saliency, {});
  const auto check = check_xml(svg);
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(count(svg, "class=\"panel\""), 2);
  EXPECT_EQ(count(svg, "class=\"cell\""), 18);
  EXPECT_EQ(count(svg, "class=\"colorbar\""), 2);
  EXPECT_EQ(count(svg, "<linearGradient"), 1);
  EXPECT_GT(svg_width(svg), 1.8 * svg_width(one) - 60);
  const auto& t = check.texts;
  for (const char* want : {"attention", "saliency", "-1", "-0.5"}) {
    EXPECT_NE(std::find(t.begin(), t.end(), want), t.end()) << want;
  }
  // Both grids start at the same height, so rows line up.
  std::smatch m;
  std::vector<std::string> ys;
  std::string rest = svg;
  const std::regex first_cell("class=\"cell\" x=\"[0-9.]+\" y=\"([0-9.]+)\"");
  while (std::regex_search(rest, m, first_cell)) {
    ys.push_back(m[1]);
    rest = m.suffix();
  }
  ASSERT_EQ(ys.size(), 18u);
  EXPECT_EQ(ys[0], ys[9]);
}

TEST(HeatmapSvg, RejectsInconsistentInput) {
  HeatmapPanel p = small_panel();
  p.values.pop_back();
  EXPECT_THROW(heatmap_svg(p, {}), Error);
  p = small_panel();
  p.values[4] = std::numeric_limits<float>::infinity();
  EXPECT_THROW(heatmap_svg(p, {}), Error);
  p = small_panel();
  p.vmax = p.vmin;
  EXPECT_THROW(heatmap_svg(p, {}), Error);
  p = HeatmapPanel{};
  EXPECT_THROW(heatmap_svg(p, {}), Error);
  try {
    HeatmapPanel q = small_panel();
    q.values.resize(4);
    heatmap_svg(q, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("4 values for 3 rows x 3 columns"), std::string::npos)
        << e.what();
  }
}

TEST(HeatmapSvg, LargeMatricesUseSmallerCells) {
  HeatmapPanel p;
  // (appending avoids GCC 12's false -Wrestrict on "literal" + std::string)
  for (int j = 0; j < 100; ++j) p.columns.push_back(std::string("w").append(std::to_string(j)));
  for (int i = 0; i < 90; ++i) p.rows.push_back(std::string("o").append(std::to_string(i)));
  p.values.assign(9000, 0.01f);
  const std::string svg = heatmap_svg(p, {});
  EXPECT_EQ(count(svg, "class=\"cell\""), 9000);
  EXPECT_NE(svg.find("width=\"14\" height=\"14\""), std::string::npos);
  EXPECT_TRUE(check_xml(svg).ok());
}

}  // namespace
}  // namespace heed::viz
