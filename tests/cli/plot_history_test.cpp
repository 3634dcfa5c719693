// End to end: `heed plot --history` on model directories, through the built binary: the
// charts (SVG and PNG) and the page of several runs, and the bad inputs (no history, a
// truncated line), after which nothing is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli_test_util.h"
#include "heed/viz/colormap.h"
#include "viz/png_check.h"

namespace heed::testing {
namespace {

namespace fs = std::filesystem;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A model directory holding what heed train writes at each validation.
std::string model_dir(const ScratchDir& d, const std::string& name, int validations, double start) {
  fs::create_directories(d.path(name));
  std::string h;
  for (int i = 1; i <= validations; ++i)
    h += "{\"best\":true,\"dev_loss\":" + std::to_string(start / i) + ",\"epoch\":1,\"lr\":" +
         std::to_string(0.001 / i) + ",\"perplexity\":2.0,\"seconds\":" + std::to_string(30.0 * i) +
         ",\"step\":" + std::to_string(500 * i) + ",\"train_loss\":" + std::to_string(start / i + 0.1) +
         ",\"wer\":" + std::to_string(40.0 / i) + "}\n";
  d.file(name + "/history.jsonl", h);
  return d.path(name);
}

TEST(PlotHistory, SeveralRunsOnEachChartAndAPage) {
  ScratchDir d("plot_history");
  const std::string a = model_dir(d, "run_a", 4, 3.0), b = model_dir(d, "run_b", 12, 2.5);  // 6 minutes
  const auto r = run_heed("plot --history " + a + " --history " + b + " --out " + d.path("out"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("wrote 6 charts and " + d.path("out") +
                          "/index.html (2 runs, 16 validations; each chart as .svg and .png)"),
            std::string::npos)
      << r.output;
  for (const char* name : {"loss_by_step", "metric_by_step", "lr_by_step", "loss_by_time",
                           "metric_by_time", "lr_by_time"}) {
    const std::string svg = slurp(d.path("out/") + name + ".svg");
    ASSERT_FALSE(svg.empty()) << name;
    EXPECT_NE(svg.find(a), std::string::npos) << name;  // both runs in the legend
    EXPECT_NE(svg.find(b), std::string::npos) << name;
    // The PNG beside it: the same drawing at twice the SVG's pixels, each run in its colour.
    const std::string png = slurp(d.path("out/") + name + ".png");
    const PngSize size = png_size(png);
    const std::size_t w = svg.find("width=\""), h = svg.find("height=\"");
    ASSERT_NE(h, std::string::npos) << name;
    EXPECT_EQ(size.width, 2 * std::stoul(svg.substr(w + 7))) << name;
    EXPECT_EQ(size.height, 2 * std::stoul(svg.substr(h + 8))) << name;
    EXPECT_GT(pixels_of(png, viz::categorical(0)), 100u) << name;
    EXPECT_GT(pixels_of(png, viz::categorical(1)), 100u) << name;
    EXPECT_EQ(pixels_of(png, viz::categorical(2)), 0u) << name;  // two runs, two colours
  }
  EXPECT_NE(slurp(d.path("out/metric_by_step.svg")).find("dev WER %"), std::string::npos);
  EXPECT_NE(slurp(d.path("out/loss_by_time.svg")).find("time (minutes)"), std::string::npos);
  const std::string page = slurp(d.path("out/index.html"));
  EXPECT_NE(page.find("<table class=\"runs\">"), std::string::npos);
  EXPECT_NE(page.find("id=\"lr_by_time\""), std::string::npos);
  EXPECT_NE(page.find("<a href=\"lr_by_time.png\">"), std::string::npos);
}

TEST(PlotHistory, ADirectoryWithoutHistoryOrATruncatedLineIsNamedAndNothingIsWritten) {
  ScratchDir d("plot_history_bad");
  const std::string a = model_dir(d, "run_a", 2, 3.0);
  fs::create_directories(d.path("empty_run"));
  auto r = run_heed("plot --history " + a + " --history " + d.path("empty_run") + " --out " +
                    d.path("out"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(d.path("empty_run") + "/history.jsonl: no such file"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(d.path("out")));

  std::ofstream(d.path("run_a/history.jsonl"), std::ios::app) << "{\"best\":false,\"dev_loss\":1.2,\"ep";
  r = run_heed("plot --history " + a + " --out " + d.path("out"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find(a + "/history.jsonl:3: not a complete JSON object"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(d.path("out")));

  r = run_heed("plot --history " + a + " --by-length x.json --out " + d.path("out"));
  EXPECT_EQ(r.exit_code, 2) << r.output;  // one mode at a time
}

}  // namespace
}  // namespace heed::testing
