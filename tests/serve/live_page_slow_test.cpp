// The live page of `heed serve` in a real browser: Debian's headless Chromium driven by
// chromium-driver (WebDriver over HTTP, spoken with cpp-httplib's client), kept off the
// network. The page loads, a sentence is typed and submitted, the attention and saliency
// maps appear with a row per output token and a column per source token (as the API reports
// them), and a click on an output token moves the highlighted row. Skipped when chromium or chromium-driver is
// not installed (tools/setup-browser.sh installs both).
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_test_util.h"
#include "support/browser.h"
#include "heed/serve/server.h"

namespace heed::serve {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using testing::Browser;
using testing::kChromium;
using testing::kDriver;

TEST(LivePage, TypeTranslateSeeTheHeatMapAndFollowAToken) {
  if (!fs::exists(kChromium) || !fs::exists(kDriver))
    GTEST_SKIP() << "needs Debian's chromium and chromium-driver (tools/setup-browser.sh)";
  testing::ScratchDir dir("heed_live_page");
  std::string src, tgt;
  for (int i = 0; i < 200; ++i) {
    std::string s;
    for (int k = 0; k < 3 + i % 5; ++k) s += static_cast<char>('a' + (i * 7 + k * 3) % 6);
    src += s + "\n";
    tgt += std::string(s.rbegin(), s.rend()) + "\n";
  }
  const std::string config = dir.file(
      "config.yaml", "data:\n  train_source: " + dir.file("s.txt", src) + "\n  train_target: " +
                         dir.file("t.txt", tgt) +
                         "\nmodel:\n  kind: bahdanau\n  emb_dim: 8\n  enc_hidden: 12\n"
                         "  dec_hidden: 12\ntraining:\n  max_steps: 10\n  threads: 1\noutput: " +
                         dir.path("model") + "\n");
  const auto trained = testing::run_heed("train " + config);
  ASSERT_EQ(trained.exit_code, 0) << trained.output;

  const LineTranslator translator = LineTranslator::load({{dir.path("model"), "best"}});
  ServerOptions options;
  options.port = 0;
  Server server(translator, "model", options);
  const int port = server.bind();
  std::thread serving([&] { server.run(); });
  struct Stop {
    Server& s;
    std::thread& t;
    ~Stop() {
      s.stop();
      t.join();
    }
  } stop{server, serving};

  // What the API says of the sentence: the heat map must have its shape.
  httplib::Client api("127.0.0.1", port);
  const auto answer =
      api.Post("/translate", R"({"sentences": ["abcde"], "beam": 2, "attention": true})",
               "application/json");
  ASSERT_TRUE(answer);
  const json expected = json::parse(answer->body)["translations"][0];
  const std::size_t rows = expected["nbest"][0]["output"].size();
  const std::size_t cols = expected["source"].size();
  ASSERT_GE(rows, 2u);

  Browser browser(dir.path("profile"));
  browser.session("POST", "/url", {{"url", "http://127.0.0.1:" + std::to_string(port) + "/"}});
  EXPECT_EQ(browser.script("return document.title").get<std::string>(),
            "heed: what the model attends to");
  EXPECT_TRUE(browser.wait_for("return document.getElementById('model').textContent"
                               ".includes('model')"));
  const std::string input = browser.element("#input");
  browser.session("POST", "/element/" + input + "/value", {{"text", "abcde"}});
  browser.session("POST", "/element/" + browser.element("#beam") + "/clear");
  browser.session("POST", "/element/" + browser.element("#beam") + "/value", {{"text", "2"}});
  browser.session("POST", "/element/" + browser.element("#go") + "/click");
  ASSERT_TRUE(browser.wait_for("return document.querySelectorAll('table.attention tbody tr').length"));

  EXPECT_EQ(browser.script("return document.querySelectorAll('table.attention tbody tr').length"),
            rows);
  EXPECT_EQ(browser.script("return document.querySelectorAll('table.attention thead th.src').length"),
            cols);
  EXPECT_EQ(browser.script("return document.querySelectorAll('table.attention tbody tr')[0]"
                           ".querySelectorAll('td').length"),
            cols);
  // The saliency map beside it has the same shape.
  EXPECT_EQ(browser.script("return document.querySelectorAll('table.saliency tbody tr').length"),
            rows);
  EXPECT_EQ(browser.script("return document.querySelectorAll('table.saliency thead th.src').length"),
            cols);
  EXPECT_EQ(browser.script("return document.querySelector('.output').textContent"),
            expected["nbest"][0]["text"]);
  // The first output token is highlighted; a click on the last one moves the highlight.
  const std::string selected =
      "return [...document.querySelectorAll('table.attention tbody tr')]"
      ".findIndex(r => r.classList.contains('selected'))";
  EXPECT_EQ(browser.script(selected), 0);
  const auto tokens = browser.elements("table.attention tbody th.out");
  ASSERT_EQ(tokens.size(), rows);
  browser.session("POST", "/element/" + tokens.back() + "/click");
  EXPECT_EQ(browser.script(selected), rows - 1);
  EXPECT_NE(browser.script("return document.querySelector('.focus').textContent")
                .get<std::string>()
                .find("attends to"),
            std::string::npos);
  // A screenshot for people to look at (written next to the test's scratch files).
  const json shot = browser.session("GET", "/screenshot");
  EXPECT_FALSE(shot["value"].get<std::string>().empty());
  if (const char* out = std::getenv("HEED_LIVE_PAGE_SCREENSHOT")) {
    std::ofstream(out, std::ios::binary) << shot["value"].get<std::string>();  // base64 PNG
  }
}

}  // namespace
}  // namespace heed::serve
