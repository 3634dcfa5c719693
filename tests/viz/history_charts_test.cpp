// Training histories read back (viz/training_history.h) and drawn (viz/history_charts.h,
// through the cairo line chart of viz/line_chart_picture.h).
#include "heed/viz/history_charts.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <set>

#include "data/temp_dir.h"
#include "heed/base/error.h"
#include "heed/viz/line_chart_picture.h"
#include "viz/xml_check.h"

namespace heed::viz {
namespace {

using heed::testing::check_xml;

// Lines as heed train writes them (trainer.cpp's validate()).
std::string line(int step, double dev_loss, double bleu, double seconds) {
  return "{\"best\":true,\"bleu\":" + std::to_string(bleu) + ",\"dev_loss\":" +
         std::to_string(dev_loss) + ",\"epoch\":1,\"lr\":0.001,\"perplexity\":3.0,\"seconds\":" +
         std::to_string(seconds) + ",\"step\":" + std::to_string(step) +
         ",\"train_loss\":" + std::to_string(dev_loss + 0.2) + "}\n";
}

std::string run_dir(const heed::testing::TempDir& t, const std::string& name,
                    const std::string& history) {
  std::filesystem::create_directories(t.file(name));
  if (!history.empty()) t.write(name + "/history.jsonl", history);
  return t.file(name);
}

std::string message(const std::string& dir) {
  try {
    read_training_history(dir);
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TrainingHistory, ReadsWhatTheTrainerWrites) {
  heed::testing::TempDir t;
  const auto h = read_training_history(
      run_dir(t, "a", line(100, 2.5, 10, 4) + line(200, 2.0, 14.5, 8.5) + "{\"step\":300,\"dev_loss\":1.9}\n"));
  EXPECT_EQ(h.metric, "bleu");
  ASSERT_EQ(h.points.size(), 3u);
  EXPECT_EQ(h.points[1].step, 200);
  EXPECT_DOUBLE_EQ(h.points[1].dev_loss, 2.0);
  EXPECT_DOUBLE_EQ(h.points[1].train_loss, 2.2);
  EXPECT_DOUBLE_EQ(h.points[1].metric, 14.5);
  EXPECT_DOUBLE_EQ(h.points[1].seconds, 8.5);
  EXPECT_DOUBLE_EQ(h.points[1].lr, 0.001);
  EXPECT_TRUE(std::isnan(h.points[2].seconds));  // not recorded: no point on the time axis
}

TEST(TrainingHistory, BadDirectoriesAndLinesAreNamed) {
  heed::testing::TempDir t;
  EXPECT_NE(message(t.file("nope")).find("nope: not a directory"), std::string::npos);
  const std::string none = run_dir(t, "none", "");
  EXPECT_NE(message(none).find("none/history.jsonl: no such file"), std::string::npos)
      << message(none);
  run_dir(t, "empty", "");
  t.write("empty/history.jsonl", "");
  EXPECT_NE(message(t.file("empty")).find("history.jsonl: empty"), std::string::npos);
  const std::string cut = run_dir(t, "cut", line(100, 2.5, 10, 4) + "{\"best\":true,\"bleu\":1");
  EXPECT_NE(message(cut).find("cut/history.jsonl:2: not a complete JSON object"), std::string::npos)
      << message(cut);
  const std::string nostep = run_dir(t, "nostep", "{\"dev_loss\":1}\n");
  EXPECT_NE(message(nostep).find("history.jsonl:1: \"step\" is missing"), std::string::npos);
  const std::string noloss = run_dir(t, "noloss", "{\"step\":5}\n");
  EXPECT_NE(message(noloss).find("history.jsonl:1: \"dev_loss\" is missing"), std::string::npos);
  const std::string text = run_dir(t, "text", "{\"step\":5,\"dev_loss\":\"low\"}\n");
  EXPECT_NE(message(text).find(":1: \"dev_loss\" must be a number"), std::string::npos);
  const std::string back = run_dir(t, "back", line(200, 2, 1, 1) + line(100, 2, 1, 2));
  EXPECT_NE(message(back).find(":2: step 100 does not follow step 200"), std::string::npos);
}

TEST(HistoryCharts, LossMetricAndRateAgainstStepsAndTimeOneColourPerRun) {
  heed::testing::TempDir t;
  const auto a = read_training_history(run_dir(t, "a", line(100, 2.5, 10, 4) + line(200, 2.0, 14, 8)));
  const auto b = read_training_history(run_dir(t, "b", line(100, 2.7, 9, 5) + line(200, 2.4, 11, 11) +
                                                         line(300, 2.2, 12, 16)));
  const auto charts = history_charts({a, b});
  std::vector<std::string> names;
  for (const auto& c : charts) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"loss_by_step", "metric_by_step", "lr_by_step",
                                             "loss_by_time", "metric_by_time", "lr_by_time"}));
  const LineChart& loss = charts[0].chart;
  ASSERT_EQ(loss.series.size(), 4u);  // dev and training loss of each run
  EXPECT_EQ(loss.series[2].label, b.dir + ": dev loss");
  EXPECT_EQ(loss.series[2].x, (std::vector<double>{100, 200, 300}));
  EXPECT_TRUE(loss.series[3].dashed);
  EXPECT_EQ(loss.series[2].colour, loss.series[3].colour);
  EXPECT_EQ(charts[1].chart.y_title, "dev BLEU");
  EXPECT_EQ(charts[4].chart.x_title, "time (seconds)");
  EXPECT_EQ(charts[4].chart.series[1].x, (std::vector<double>{5, 11, 16}));
  for (const auto& c : charts) {
    const std::string svg = line_chart_picture_svg(c.chart);
    EXPECT_TRUE(check_xml(svg).ok()) << c.name;
    EXPECT_NE(svg.find("x: " + c.chart.x_title), std::string::npos) << c.name;
  }
  EXPECT_NE(line_chart_picture_svg(loss).find("stroke-dasharray"),
            std::string::npos);
}

TEST(HistoryCharts, ARunWithoutSecondsOrMetricHasNoSuchCharts) {
  heed::testing::TempDir t;
  const auto a = read_training_history(run_dir(t, "a", "{\"step\":10,\"dev_loss\":3}\n{\"step\":20,\"dev_loss\":2}\n"));
  std::vector<std::string> names;
  for (const auto& c : history_charts({a})) names.push_back(c.name);
  EXPECT_EQ(names, (std::vector<std::string>{"loss_by_step"}));  // no lr, no metric, no time
}

TEST(HistoryCharts, ThePageHoldsEveryChartAndTheRunsTable) {
  heed::testing::TempDir t;
  const auto a = read_training_history(run_dir(t, "a", line(100, 2.5, 10, 4) + line(200, 2.0, 14, 8)));
  const std::string page = history_page({a});
  EXPECT_NE(page.find("<table class=\"runs\">"), std::string::npos);
  std::size_t figures = 0;
  for (std::size_t at = page.find("<figure class=\"chart\""); at != std::string::npos;
       at = page.find("<figure class=\"chart\"", at + 1))
    ++figures;
  EXPECT_EQ(figures, 6u);
  EXPECT_EQ(page.find("<script"), std::string::npos);  // the static page fetches nothing
  EXPECT_TRUE(check_xml(page.substr(page.find("<div id=\"curves\">"),
                                    page.find("</body>") - page.find("<div id=\"curves\">")))
                  .ok());
  // Every chart's files linked, beside the page.
  EXPECT_NE(page.find("<a href=\"loss_by_step.svg\">"), std::string::npos);
  EXPECT_NE(page.find("<a href=\"lr_by_time.png\">"), std::string::npos);
  // Six cairo documents inline: no id twice, or one chart would draw another's glyphs.
  std::set<std::string> ids;
  std::size_t n = 0;
  for (std::size_t at = page.find(" id=\""); at != std::string::npos; at = page.find(" id=\"", at + 1), ++n)
    ids.insert(page.substr(at + 5, page.find('"', at + 5) - at - 5));
  EXPECT_GT(n, 6u * 5);
  EXPECT_EQ(ids.size(), n);
  EXPECT_EQ(ids.count("metric_by_time-glyph0-1"), 1u);
  const std::string live = history_page({a}, true, "/curves", {"c"});
  EXPECT_NE(live.find("fetch(\"/curves\""), std::string::npos);
  EXPECT_NE(live.find("no validation yet"), std::string::npos);
  EXPECT_EQ(live.find(".png\""), std::string::npos);  // served: no files to link
}

}  // namespace
}  // namespace heed::viz
