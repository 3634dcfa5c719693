// The report page of `heed show` (viz/report_html.h) in a real browser (support/browser.h:
// headless Chromium through chromium-driver, off the network): the maps have a row per output
// token and a column per source token, hovering a cell shows its tokens and weight, clicking
// an output token moves the highlighted row and shows it over the source, clicking a
// hypothesis shows its attention. Skipped when chromium or chromium-driver is not installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_test_util.h"
#include "heed/viz/report_html.h"
#include "support/browser.h"

namespace heed::viz {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TEST(ReportPage, HoverClickAndChooseAHypothesis) {
  if (!fs::exists(testing::kChromium) || !fs::exists(testing::kDriver))
    GTEST_SKIP() << "needs Debian's chromium and chromium-driver (tools/setup-browser.sh)";
  testing::ScratchDir dir("heed_report_page");
  ReportSentence s;
  s.line = 1;
  s.input = "le chat noir";
  s.source = {"le", "chat", "noir", "</s>"};
  s.nbest = {{"the black cat", -0.25, {"the", "black", "cat", "</s>"},
              {0.9f, 0.05f, 0.03f, 0.02f, 0.1f, 0.1f, 0.7f, 0.1f, 0.05f, 0.8f, 0.1f, 0.05f,
               0.0f, 0.0f, 0.1f, 0.9f}},
             {"the cat", -1.75, {"the", "cat", "</s>"},
              {0.6f, 0.2f, 0.1f, 0.1f, 0.2f, 0.6f, 0.1f, 0.1f, 0.0f, 0.0f, 0.2f, 0.8f}}};
  s.saliency.assign(16, 0.5f);
  ReportSentence empty;
  empty.line = 2;
  empty.note = "empty line";
  const std::string page = dir.path("report.html");
  std::ofstream(page) << report_html({"in.txt", "model", 2, true, true}, {s, empty});

  testing::Browser browser(dir.path("profile"));
  browser.session("POST", "/url", {{"url", "file://" + page}});
  EXPECT_EQ(browser.script("return document.title").get<std::string>(), "heed show: in.txt");
  ASSERT_TRUE(browser.wait_for("return document.querySelectorAll('table.attention tbody tr').length"));
  EXPECT_EQ(browser.script("return document.querySelectorAll('table.attention tbody tr').length"), 4);
  EXPECT_EQ(browser.script("return document.querySelectorAll('table.attention thead th.src').length"), 4);
  EXPECT_EQ(browser.script("return document.querySelectorAll('table.saliency tbody tr').length"), 4);
  EXPECT_EQ(browser.script("return document.querySelectorAll('table.nbest tr').length"), 2);
  EXPECT_NE(browser.script("return document.querySelector('table.nbest').textContent")
                .get<std::string>()
                .find("-1.7500"),
            std::string::npos);
  EXPECT_NE(browser.script("return document.body.textContent").get<std::string>().find("empty line"),
            std::string::npos);

  // Hover the cell black <- noir: the tip names both tokens and the weight.
  const std::string cell = browser.element("table.attention tbody tr:nth-child(2) td:nth-of-type(3)");
  browser.session("POST", "/actions",
                  {{"actions",
                    {{{"type", "pointer"},
                      {"id", "mouse"},
                      {"parameters", {{"pointerType", "mouse"}}},
                      {"actions",
                       {{{"type", "pointerMove"},
                         {"duration", 0},
                         {"origin", {{"element-6066-11e4-a52e-4f735466cecf", cell}}},
                         {"x", 0},
                         {"y", 0}}}}}}}});
  EXPECT_EQ(browser.script("return document.getElementById('tip').textContent").get<std::string>(),
            "attention: black \xE2\x86\x90 noir = 0.700");

  // The first output token is selected; a click on "cat" selects its row, shown over the source.
  const std::string selected =
      "return [...document.querySelectorAll('table.attention tbody tr')]"
      ".findIndex(r => r.classList.contains('selected'))";
  EXPECT_EQ(browser.script(selected), 0);
  const auto tokens = browser.elements("table.attention tbody th.out");
  ASSERT_EQ(tokens.size(), 4u);
  browser.session("POST", "/element/" + tokens[2] + "/click");
  EXPECT_EQ(browser.script(selected), 2);
  const std::string focus = browser.script("return document.querySelector('.focus').textContent");
  EXPECT_NE(focus.find("cat attends to:"), std::string::npos) << focus;
  EXPECT_NE(focus.find("chat0.800"), std::string::npos) << focus;

  // The second hypothesis: its own attention, three rows; saliency belongs to the best only.
  browser.session("POST", "/element/" + browser.elements("table.nbest tr")[1] + "/click");
  EXPECT_EQ(browser.script("return document.querySelectorAll('table.attention tbody tr').length"), 3);
  EXPECT_EQ(browser.script("return document.querySelectorAll('table.saliency').length"), 0);
  EXPECT_NE(browser.script("return document.querySelector('.maps').textContent")
                .get<std::string>()
                .find("best hypothesis only"),
            std::string::npos);
  if (const char* out = std::getenv("HEED_REPORT_SCREENSHOT")) {
    const json shot = browser.session("GET", "/screenshot");
    std::ofstream(out, std::ios::binary) << shot["value"].get<std::string>();  // base64 PNG
  }
}

}  // namespace
}  // namespace heed::viz
