// The cairo line chart with a numeric x axis (viz/line_chart_picture.h), what the training
// curves are drawn with: the SVG is well-formed and names the chart in words, its ids carry
// the prefix, the PNG has the promised size and one palette colour per run, and what cannot
// be drawn is refused.
#include "heed/viz/line_chart_picture.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "heed/base/error.h"
#include "heed/viz/colormap.h"
#include "viz/png_check.h"
#include "viz/xml_check.h"

namespace heed::viz {
namespace {

using testing::pixels_of;
using testing::png_size;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Two runs' losses against steps: dev solid, training dashed, one colour per run.
LineChart two_runs() {
  LineChart c;
  c.title = "loss against steps";
  c.x_title = "step";
  c.y_title = "loss (nats per token)";
  LineSeries a{"runs/a: dev loss", {3.0, 2.4, 2.1, 2.0}, {}, {}, {500, 1000, 1500, 2000}};
  LineSeries at{"runs/a: training loss", {3.2, 2.5, 2.2, 2.05}, {}, {}, {500, 1000, 1500, 2000}};
  LineSeries b{"runs/b: dev loss", {2.8, 2.6}, {}, {}, {1000, 2000}};
  at.dashed = true;
  a.colour = at.colour = 0;
  b.colour = 1;
  c.series = {a, at, b};
  return c;
}

TEST(LineChartPicture, SvgIsWellFormedAndSaysTheChartInWords) {
  const LineChart c = two_runs();
  const std::string svg = line_chart_picture_svg(c);
  const auto check = testing::check_xml(svg);
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_GE(check.elements.at("use"), 40);  // the text, as glyphs
  for (const char* words : {"<title>loss against steps</title>", "x: step", "y: loss (nats per token)",
                            "runs/a: dev loss", "runs/a: training loss (dashed)", "runs/b: dev loss"})
    EXPECT_NE(svg.find(words), std::string::npos) << words;
  EXPECT_NE(svg.find("stroke-dasharray"), std::string::npos);  // the training loss
  const LineChartSize size = line_chart_picture_size(c);
  EXPECT_NE(svg.find("width=\"" + std::to_string(size.width) + "px\""), std::string::npos);
  EXPECT_GT(size.width, 480);  // the plot, the ticks and the legend
  EXPECT_GT(size.height, 300);
}

TEST(LineChartPicture, IdsCarryThePrefixSoThatChartsCanShareAPage) {
  const std::string svg = line_chart_picture_svg(two_runs(), "loss_by_step-");
  ASSERT_TRUE(testing::check_xml(svg).ok());
  std::size_t ids = 0;
  for (std::size_t at = svg.find(" id=\""); at != std::string::npos; at = svg.find(" id=\"", at + 1), ++ids)
    EXPECT_EQ(svg.compare(at + 5, 13, "loss_by_step-"), 0) << svg.substr(at, 40);
  EXPECT_GT(ids, 5u);
  for (const std::string ref : {"href=\"#", "url(#"})
    for (std::size_t at = svg.find(ref); at != std::string::npos; at = svg.find(ref, at + 1))
      EXPECT_EQ(svg.compare(at + ref.size(), 13, "loss_by_step-"), 0) << svg.substr(at, 40);
  // Without a prefix, cairo's own ids.
  EXPECT_NE(line_chart_picture_svg(two_runs()).find(" id=\"glyph"), std::string::npos);
}

TEST(LineChartPicture, PngIsTheLayoutTimesTheScaleWithOneColourPerRun) {
  const LineChart c = two_runs();
  const LineChartSize size = line_chart_picture_size(c);
  for (double scale : {1.0, 2.0, 1.5}) {
    const testing::PngSize got = png_size(line_chart_picture_png(c, scale));
    EXPECT_EQ(got.width, static_cast<std::uint32_t>(std::ceil(size.width * scale)));
    EXPECT_EQ(got.height, static_cast<std::uint32_t>(std::ceil(size.height * scale)));
  }
  const std::string png = line_chart_picture_png(c);
  EXPECT_GT(pixels_of(png, categorical(0)), 200u);
  EXPECT_GT(pixels_of(png, categorical(1)), 100u);
  // One run: its colour alone.
  LineChart one = c;
  one.series.pop_back();
  const std::string png1 = line_chart_picture_png(one);
  EXPECT_GT(pixels_of(png1, categorical(0)), 200u);
  EXPECT_EQ(pixels_of(png1, categorical(1)), 0u);
  EXPECT_THROW(line_chart_picture_png(c, 0.0), Error);
}

TEST(LineChartPicture, ManyPointsOneValueAndGapsDraw) {
  LineChart c;
  c.x_title = "step";
  LineSeries lr{"learning rate", {}, {}, {}, {}};
  for (int i = 1; i <= 500; ++i) {  // a dense curve: no markers
    lr.x.push_back(100.0 * i);
    lr.y.push_back(i == 250 ? kNaN : 0.002);  // constant, with a gap
  }
  c.series = {lr};
  EXPECT_TRUE(testing::check_xml(line_chart_picture_svg(c)).ok());
  EXPECT_GT(pixels_of(line_chart_picture_png(c), categorical(0)), 500u);
  c.series = {LineSeries{"one validation", {2.5}, {}, {}, {100}}};
  EXPECT_GT(pixels_of(line_chart_picture_png(c), categorical(0)), 20u);  // its marker
}

TEST(LineChartPicture, RefusesWhatCannotBeDrawn) {
  auto refused = [](const LineChart& c) {
    EXPECT_THROW(line_chart_picture_size(c), Error);
    EXPECT_THROW(line_chart_picture_svg(c), Error);
    EXPECT_THROW(line_chart_picture_png(c), Error);
  };
  LineChart c;
  refused(c);  // no series
  c.series = {LineSeries{"a", {1, 2}, {}, {}, {0, 1, 2}}};
  refused(c);  // 3 x for 2 y
  c.series = {LineSeries{"a", {1, 2}, {}, {}, {}}};
  refused(c);  // no x at all
  c.series = {LineSeries{"a", {1, 2}, {}, {}, {0, std::numeric_limits<double>::infinity()}}};
  refused(c);
  c.series = {LineSeries{"a", {1, std::numeric_limits<double>::infinity()}, {}, {}, {0, 1}}};
  refused(c);
  c.series = {LineSeries{"a", {kNaN, kNaN}, {}, {}, {0, 1}}};
  refused(c);  // nothing to draw
  c.series = {LineSeries{"a", {1, 2}, {0, 1}, {2, 3}, {0, 1}}};
  refused(c);  // intervals
  c.series = {LineSeries{"a", {1, 2}, {}, {}, {0, 10}}};
  c.categories = {"x", "y"};
  refused(c);  // categories: line_chart_svg's
  c.categories.clear();
  EXPECT_NO_THROW(line_chart_picture_png(c));
}

}  // namespace
}  // namespace heed::viz
