#include "heed/viz/line_chart_svg.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>

#include "data/temp_dir.h"
#include "heed/base/error.h"
#include "heed/viz/length_scores.h"
#include "viz/xml_check.h"

namespace heed::viz {
namespace {

using heed::testing::check_xml;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

// The d attribute of the k-th element with the given class.
std::string path_of(const std::string& svg, const std::string& cls, std::size_t k = 0) {
  std::size_t at = 0;
  for (std::size_t i = 0; i <= k; ++i) {
    at = svg.find("class=\"" + cls + "\"", at + 1);
    if (at == std::string::npos) return "";
  }
  const std::size_t d = svg.find(" d=\"", at) + 4;
  return svg.substr(d, svg.find('"', d) - d);
}

LineChart two_systems() {
  LineChart c;
  c.title = "BLEU by source length";
  c.x_title = "source length (words)";
  c.y_title = "BLEU";
  c.categories = {"1-10", "11-20", "21-30", "31+"};
  c.notes = {"n=10", "n=12", "n=0", "n=4"};
  LineSeries a{"RNNsearch <50> & co", {30, 25, kNaN, 12}, {27, 22, kNaN, 8}, {33, 28, kNaN, 15}};
  LineSeries b{"RNNenc", {28, 20, kNaN, 6}, {25, 18, kNaN, 3}, {31, 23, kNaN, 9}};
  c.series = {a, b};
  return c;
}

TEST(NiceTicks, RoundStepsCoveringTheRange) {
  EXPECT_EQ(nice_ticks(21.7, 76.3), (std::vector<double>{20, 40, 60, 80}));
  const auto t = nice_ticks(0.0, 1.0);
  ASSERT_EQ(t.size(), 6u);
  EXPECT_DOUBLE_EQ(t[1], 0.2);
  EXPECT_DOUBLE_EQ(t.back(), 1.0);
  EXPECT_EQ(nice_ticks(3.0, 14.0), (std::vector<double>{2.5, 5, 7.5, 10, 12.5, 15}));  // step 2.5
  EXPECT_EQ(nice_ticks(5.0, 5.0), (std::vector<double>{4, 4.5, 5, 5.5, 6}));           // widened
  EXPECT_EQ(nice_ticks(-3.0, 3.0), (std::vector<double>{-4, -2, 0, 2, 4}));
  EXPECT_THROW(nice_ticks(0.0, std::numeric_limits<double>::infinity()), Error);
}

TEST(LineChartSvg, WellFormedWithOneLinePerSeriesAndEscapedLabels) {
  const std::string svg = line_chart_svg(two_systems());
  EXPECT_EQ(svg.rfind("<?xml", 0), 0u);
  EXPECT_EQ(svg.find("<svg"), svg.find('\n') + 1);  // the root element right after the declaration
  EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
  const auto check = check_xml(svg);
  ASSERT_TRUE(check.ok()) << check.error;
  EXPECT_EQ(count(svg, "class=\"line\""), 2u);
  EXPECT_EQ(count(svg, "class=\"band\""), 2u);
  EXPECT_EQ(count(svg, "class=\"legend\""), 2u);
  EXPECT_EQ(check.elements.at("circle"), 2 * 3 + 2);  // 3 points each, 2 legend markers
  EXPECT_NE(svg.find("RNNsearch &lt;50&gt; &amp; co"), std::string::npos);
  EXPECT_EQ(svg.find("<50>"), std::string::npos);
  const auto& texts = check.texts;
  for (const char* want : {"RNNsearch <50> & co", "RNNenc", "1-10", "31+", "n=12", "BLEU",
                           "source length (words)", "BLEU by source length"}) {
    EXPECT_NE(std::find(texts.begin(), texts.end(), want), texts.end()) << want;
  }
  // y from 3 to 33: ticks 0, 10, 20, 30, 40.
  EXPECT_NE(std::find(texts.begin(), texts.end(), "40"), texts.end());
  EXPECT_NE(std::find(texts.begin(), texts.end(), "0"), texts.end());
  // The empty third bucket breaks the line: two subpaths, the second a lone point.
  const std::string line = path_of(svg, "line");
  EXPECT_EQ(count(line, "M"), 2u) << line;
  EXPECT_EQ(count(line, "L"), 1u) << line;
  // Its interval: a band over the first two, a bar at the lone last point.
  EXPECT_EQ(count(svg, "class=\"bars\""), 2u);
}

TEST(LineChartSvg, ErrorBarsInsteadOfBands) {
  LineChart c = two_systems();
  c.intervals = IntervalStyle::bars;
  const std::string svg = line_chart_svg(c);
  EXPECT_TRUE(check_xml(svg).ok());
  EXPECT_EQ(count(svg, "class=\"band\""), 0u);
  EXPECT_EQ(count(svg, "class=\"bars\""), 2u);
  EXPECT_EQ(count(path_of(svg, "bars"), "V"), 3u);  // one bar per point
}

TEST(LineChartSvg, RejectsWhatCannotBeDrawn) {
  LineChart c = two_systems();
  c.series[0].y.pop_back();
  EXPECT_THROW(line_chart_svg(c), Error);
  c = two_systems();
  c.series[1].upper[0] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(line_chart_svg(c), Error);
  c = two_systems();
  c.series.clear();
  EXPECT_THROW(line_chart_svg(c), Error);
  c = two_systems();
  for (auto& s : c.series) s.y.assign(4, kNaN);
  for (auto& s : c.series) s.lower.assign(4, kNaN);
  for (auto& s : c.series) s.upper.assign(4, kNaN);
  EXPECT_THROW(line_chart_svg(c), Error);
}

std::string scores_json(const std::string& metric, const std::string& unit,
                        const std::string& label, const std::string& buckets) {
  return "{\"metric\": \"" + metric + "\", \"score_name\": \"BLEU\", \"label\": \"" + label +
         "\", \"lowercase\": false, \"length_unit\": \"" + unit + "\", \"buckets\": " + buckets +
         "}";
}

const char* kBuckets =
    "[{\"lo\": 1, \"hi\": 10, \"n\": 3, \"score\": 40.5, \"lower\": 30, \"upper\": 50},"
    " {\"lo\": 11, \"hi\": null, \"n\": 0, \"score\": null, \"lower\": null, \"upper\": null}]";

TEST(LengthScores, ReadsTheJsonOfHeedScoreAndChartsIt) {
  heed::testing::TempDir dir;
  const std::string a = dir.file("a.json"), b = dir.file("b.json");
  std::ofstream(a) << scores_json("bleu", "words", "sys A", kBuckets);
  std::ofstream(b) << scores_json("bleu", "words", "sys B", kBuckets);
  LengthScores s = read_length_scores(a);
  EXPECT_EQ(s.label, "sys A");
  ASSERT_EQ(s.buckets.size(), 2u);
  EXPECT_EQ(s.buckets[0].label(), "1-10");
  EXPECT_EQ(s.buckets[1].label(), "11+");
  EXPECT_DOUBLE_EQ(s.buckets[0].score, 40.5);
  EXPECT_TRUE(std::isnan(s.buckets[1].score));
  LineChart c = length_chart({s, read_length_scores(b)});
  EXPECT_EQ(c.title, "BLEU by source length");
  EXPECT_EQ(c.y_title, "BLEU");
  EXPECT_EQ(c.x_title, "source length (words)");
  EXPECT_EQ(c.categories, (std::vector<std::string>{"1-10", "11+"}));
  EXPECT_EQ(c.notes, (std::vector<std::string>{"n=3", "n=0"}));
  ASSERT_EQ(c.series.size(), 2u);
  EXPECT_EQ(c.series[1].label, "sys B");
  EXPECT_EQ(length_chart({s}, "Mine").title, "Mine");
  EXPECT_EQ(metrics::chart_title(metrics::Metric::wer), "WER %");
  EXPECT_TRUE(check_xml(line_chart_svg(c)).ok());
}

TEST(LengthScores, RefusesMixedMetricsUnitsAndBuckets) {
  heed::testing::TempDir dir;
  auto write = [&](const std::string& name, const std::string& text) {
    const std::string p = dir.file(name);
    std::ofstream(p) << text;
    return read_length_scores(p);
  };
  auto expect_error = [](const std::vector<LengthScores>& files, const std::string& part) {
    try {
      length_chart(files);
      ADD_FAILURE() << "no error, expected " << part;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  const auto bleu = write("bleu.json", scores_json("bleu", "words", "x", kBuckets));
  expect_error({bleu, write("wer.json", scores_json("wer", "words", "y", kBuckets))},
               "different metrics (bleu, wer)");
  expect_error({bleu, write("chars.json", scores_json("bleu", "chars", "y", kBuckets))},
               "different units");
  expect_error(
      {bleu, write("other.json", scores_json("bleu", "words", "y",
                                             "[{\"lo\": 1, \"hi\": null, \"n\": 3, \"score\": 1, "
                                             "\"lower\": 0, \"upper\": 2}]"))},
      "different length buckets");
}

TEST(LengthScores, BadFilesNameTheFileAndTheField) {
  heed::testing::TempDir dir;
  auto expect_error = [&](const std::string& text, const std::string& part) {
    const std::string p = dir.file("bad.json");
    std::ofstream(p) << text;
    try {
      read_length_scores(p);
      ADD_FAILURE() << "no error, expected " << part;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expect_error("{not json", "heed score --by-length");
  expect_error("{\"metric\": \"bleu\"}", "no \"buckets\"");
  expect_error(scores_json("bleu", "lines", "x", kBuckets), "\"length_unit\"");
  expect_error(scores_json("meteor", "words", "x", kBuckets),
               "\"metric\": expected one of bleu | chrf | wer | g2p | aer | rouge, got 'meteor'");
  expect_error(scores_json("bleu", "words", "x",
                           "[{\"lo\": 1, \"hi\": 10, \"n\": 2, \"score\": "
                           "null, \"lower\": null, \"upper\": null}]"),
               "bucket 1: \"score\" is null but n = 2");
  expect_error(scores_json("bleu", "words", "x", "[{\"lo\": 1, \"n\": 2}]"), "\"hi\" is missing");
  EXPECT_THROW(read_length_scores(dir.file("missing.json")), Error);
}

}  // namespace
}  // namespace heed::viz
