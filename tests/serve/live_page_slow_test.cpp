// The live page of `heed serve` in a real browser: Debian's headless Chromium driven by
// chromium-driver (WebDriver over HTTP, spoken with cpp-httplib's client), kept off the
// network. The page loads, a sentence is typed and submitted, the attention and saliency
// maps appear with a row per output token and a column per source token (as the API reports
// them), and a click on an output token moves the highlighted row. Then what a tester found:
// an older slow answer must not replace a newer one, the page must not scroll sideways at
// 420 px, each map has a colour legend, the chips' text is readable (contrast >= 4.5:1),
// one-character labels stand upright, and the saliency map is scaled per row unless asked
// otherwise. One small model is trained and served for all of them. Skipped when chromium or
// chromium-driver is not installed (tools/setup-browser.sh installs both).
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
#include "heed/serve/watch_server.h"

namespace heed::serve {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using testing::Browser;
using testing::kChromium;
using testing::kDriver;

// A model trained for a few steps, served on a free port for every test of the suite.
class LivePage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!fs::exists(kChromium) || !fs::exists(kDriver)) return;
    dir_ = new testing::ScratchDir("heed_live_page");
    std::string src, tgt;
    for (int i = 0; i < 200; ++i) {
      std::string s;
      for (int k = 0; k < 3 + i % 5; ++k) s += static_cast<char>('a' + (i * 7 + k * 3) % 6);
      src += s + "\n";
      tgt += std::string(s.rbegin(), s.rend()) + "\n";
    }
    const std::string config = dir_->file(
        "config.yaml", "data:\n  train_source: " + dir_->file("s.txt", src) + "\n  train_target: " +
                           dir_->file("t.txt", tgt) +
                           "\nmodel:\n  kind: bahdanau\n  emb_dim: 8\n  enc_hidden: 12\n"
                           "  dec_hidden: 12\ntraining:\n  max_steps: 10\n  threads: 1\noutput: " +
                           dir_->path("model") + "\n");
    const auto trained = testing::run_heed("train " + config);
    ASSERT_EQ(trained.exit_code, 0) << trained.output;
    translator_ = new LineTranslator(LineTranslator::load({{dir_->path("model"), "best"}}));
    ServerOptions options;
    options.port = 0;
    server_ = new Server(*translator_, "model", options);
    port_ = server_->bind();
    serving_ = new std::thread([] { server_->run(); });
  }
  static void TearDownTestSuite() {
    if (server_) server_->stop();
    if (serving_) serving_->join();
    delete serving_;
    delete server_;
    delete translator_;
    delete dir_;
    serving_ = nullptr;
    server_ = nullptr;
    translator_ = nullptr;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!fs::exists(kChromium) || !fs::exists(kDriver))
      GTEST_SKIP() << "needs Debian's chromium and chromium-driver (tools/setup-browser.sh)";
    ASSERT_NE(server_, nullptr) << "the model for the page was not trained";
  }
  static std::string url(const std::string& query = "") {
    return "http://127.0.0.1:" + std::to_string(port_) + "/" + query;
  }

  static testing::ScratchDir* dir_;
  static LineTranslator* translator_;
  static Server* server_;
  static std::thread* serving_;
  static int port_;
};
testing::ScratchDir* LivePage::dir_ = nullptr;
LineTranslator* LivePage::translator_ = nullptr;
Server* LivePage::server_ = nullptr;
std::thread* LivePage::serving_ = nullptr;
int LivePage::port_ = 0;

// The WCAG contrast ratio of an element's text over its background, both as the browser
// computed them (an independent check of the page's own choice of black or white).
constexpr const char* kContrastJs = R"js(
  const lum = (s) => {
    const c = s.match(/[0-9.]+/g).slice(0, 3).map(Number).map((v) => {
      v /= 255; return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
    return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
  };
  const ratio = (e) => {
    const st = getComputedStyle(e);
    const [hi, lo] = [lum(st.color), lum(st.backgroundColor)].sort((p, q) => q - p);
    return (hi + 0.05) / (lo + 0.05);
  };
)js";

TEST_F(LivePage, TypeTranslateSeeTheHeatMapAndFollowAToken) {
  const int port = port_;
  testing::ScratchDir scratch("heed_live_page_browser");
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

  Browser browser(scratch.path("profile"));
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

// Two requests in a row, the first answered late (the page's fetch is wrapped so that the
// first answer arrives 1.5 s after the second): the newer answer stays on screen.
TEST_F(LivePage, AnOlderSlowAnswerNeverReplacesANewerOne) {
  testing::ScratchDir scratch("heed_live_page_browser");
  Browser browser(scratch.path("profile"));
  browser.session("POST", "/url", {{"url", url()}});
  ASSERT_TRUE(browser.wait_for("return document.getElementById('model').textContent"));
  // The wrapper ignores the page's abort signal, so that the late answer really arrives and
  // only the page's own ordering can keep it off the screen.
  browser.script(R"js(
    const real = window.fetch.bind(window);
    let calls = 0;
    window.lateArrived = false;
    window.fetch = (url, opts) => {
      if (url !== '/translate') return real(url, opts);
      const first = calls++ === 0;
      const p = real(url, Object.assign({}, opts, {signal: undefined}));
      if (!first) return p;
      return new Promise((resolve) => setTimeout(() => { window.lateArrived = true; resolve(p); }, 1500));
    };
    return true;)js");
  // The first request has two sentences, the second one: the count on screen says whose
  // answer is shown.
  browser.script(R"js(document.getElementById('input').value = 'abc\nbcd';
                      document.getElementById('go').click(); return true;)js");
  browser.script(R"js(document.getElementById('input').value = 'abcde';
                      document.getElementById('go').click(); return true;)js");
  ASSERT_TRUE(browser.wait_for("return window.lateArrived"));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the late answer is handled
  EXPECT_EQ(browser.script("return document.querySelectorAll('#results .sentence').length"), 1);
  EXPECT_EQ(browser.script("return document.getElementById('status').textContent.slice(0, 4)"),
            "done");
}

// At 420 px a long sentence's maps scroll inside their own boxes, not the page; each map has
// a legend; the chips' text contrasts with their colours; one-letter labels stand upright.
TEST_F(LivePage, NarrowWindowLegendContrastAndUprightLabels) {
  testing::ScratchDir scratch("heed_live_page_browser");
  Browser browser(scratch.path("profile"));
  browser.session("POST", "/window/rect", {{"width", 420}, {"height", 900}});
  const std::string sentence = "abcdeabcdeabcdeabcdeabcdeabcdeabcde";  // 35 columns
  browser.session("POST", "/url", {{"url", url("?beam=2&s=" + sentence)}});
  ASSERT_TRUE(browser.wait_for("return document.querySelectorAll('table.saliency tbody tr').length"));
  EXPECT_LE(browser.script("return window.innerWidth").get<int>(), 420);
  EXPECT_GT(browser.script("return document.querySelector('table.attention').scrollWidth"
                           " - window.innerWidth").get<int>(), 0)
      << "the map should be wider than the window, or this test checks nothing";
  EXPECT_LE(browser.script("return document.documentElement.scrollWidth - "
                           "document.documentElement.clientWidth").get<int>(), 0)
      << "the page scrolls sideways";
  // A legend under each map, saying what 1 stands for.
  EXPECT_EQ(browser.script("return document.querySelectorAll('.map').length"), 2);
  EXPECT_EQ(browser.script("return document.querySelectorAll('.map .legend .bar').length"), 2);
  EXPECT_NE(browser.script("return document.querySelector('.map.attention .legend').textContent")
                .get<std::string>()
                .find("attention weight"),
            std::string::npos);
  // Every chip, the most attended one included, reads at 4.5:1 or better.
  const json chips = browser.script(std::string(kContrastJs) + R"js(
    const chips = [...document.querySelectorAll('.focus .chip')];
    let top = chips[0];
    for (const c of chips) if (parseFloat(c.title) > parseFloat(top.title)) top = c;
    return {n: chips.length, min: Math.min(...chips.map(ratio)), top: ratio(top)};)js");
  EXPECT_EQ(chips["n"].get<int>(), static_cast<int>(sentence.size()) + 1);  // and EOS
  EXPECT_GE(chips["min"].get<double>(), 4.5);
  EXPECT_GE(chips["top"].get<double>(), 4.5);
  // One-letter column labels are not turned sideways.
  EXPECT_EQ(browser.script(R"js(
    return [...document.querySelectorAll('table.attention th.src')]
      .filter((th) => [...th.textContent].length === 1)
      .filter((th) => getComputedStyle(th).writingMode === 'horizontal-tb').length;)js"),
            sentence.size());
  const json shot = browser.session("GET", "/screenshot");
  if (const char* out = std::getenv("HEED_LIVE_PAGE_SCREENSHOT_NARROW")) {
    std::ofstream(out, std::ios::binary) << shot["value"].get<std::string>();  // base64 PNG
  }
}

// The saliency map is scaled per row by default (each row reaches the top colour, so a
// confident token's row is not blank), and to the whole map when asked; the legend says which.
TEST_F(LivePage, SaliencyScaledPerRowOrToTheMapAndTheLegendSaysWhich) {
  testing::ScratchDir scratch("heed_live_page_browser");
  Browser browser(scratch.path("profile"));
  browser.session("POST", "/url", {{"url", url("?beam=2&s=abcdef")}});
  ASSERT_TRUE(browser.wait_for("return document.querySelectorAll('table.saliency tbody tr').length"));
  // Rows holding a cell of viridis(1), the colour of each row's largest when scaled per row.
  const std::string full_rows = R"js(
    const rows = [...document.querySelectorAll('table.saliency tbody tr')];
    return [rows.length, rows.filter((r) => [...r.querySelectorAll('td')]
      .some((td) => td.style.backgroundColor === 'rgb(253, 231, 37)')).length];)js";
  json counts = browser.script(full_rows);
  ASSERT_GE(counts[0].get<int>(), 2);
  EXPECT_EQ(counts[1], counts[0]);
  EXPECT_NE(browser.script("return document.querySelector('.map.saliency .legend').textContent")
                .get<std::string>()
                .find("each row"),
            std::string::npos);
  browser.script(R"js(const s = document.getElementById('scale'); s.value = 'map';
                      s.dispatchEvent(new Event('change')); return true;)js");
  counts = browser.script(full_rows);
  EXPECT_GE(counts[1].get<int>(), 1);  // the map's largest cell
  EXPECT_NE(browser.script("return document.querySelector('.map.saliency .legend').textContent")
                .get<std::string>()
                .find("map's largest"),
            std::string::npos);
}

// The page of `heed serve --watch` follows a growing history: the charts are there, and a
// validation written after the page loaded shows up without a reload. At 420 px it does not
// scroll sideways either.
TEST(WatchPage, CurvesGrowWhileThePageIsOpen) {
  if (!fs::exists(kChromium) || !fs::exists(kDriver))
    GTEST_SKIP() << "needs Debian's chromium and chromium-driver (tools/setup-browser.sh)";
  testing::ScratchDir scratch("heed_watch_page");
  fs::create_directories(scratch.path("run"));
  auto record = [](int step) {
    return "{\"best\":true,\"bleu\":" + std::to_string(step / 100) + ",\"dev_loss\":" +
           std::to_string(3.0 - step / 1000.0) + ",\"epoch\":1,\"lr\":0.001,\"perplexity\":2,"
           "\"seconds\":" + std::to_string(step / 10) + ",\"step\":" + std::to_string(step) +
           ",\"train_loss\":2.5}\n";
  };
  auto write = [&](const std::string& text) {
    std::ofstream(scratch.path("run/h.tmp")) << text;
    fs::rename(scratch.path("run/h.tmp"), scratch.path("run/history.jsonl"));
  };
  write(record(100) + record(200));
  WatchServer server({scratch.path("run")}, "127.0.0.1", 0);
  const int port = server.bind();
  std::thread serving([&] { server.run(); });
  struct Stop {
    WatchServer& s;
    std::thread& t;
    ~Stop() {
      s.stop();
      t.join();
    }
  } stop{server, serving};

  Browser browser(scratch.path("profile"));
  browser.session("POST", "/window/rect", {{"width", 420}, {"height", 900}});
  browser.session("POST", "/url", {{"url", "http://127.0.0.1:" + std::to_string(port) + "/"}});
  const std::string validations =
      "return document.querySelector('table.runs tbody tr td:nth-child(2)').textContent";
  EXPECT_EQ(browser.script(validations), "2");
  EXPECT_EQ(browser.script("return document.querySelectorAll('figure.chart svg').length"), 6);
  write(record(100) + record(200) + record(300));
  EXPECT_TRUE(browser.wait_for(
      "return document.querySelector('table.runs tbody tr td:nth-child(2)').textContent === '3'"));
  EXPECT_EQ(browser.script("return document.querySelectorAll('figure.chart svg').length"), 6);
  EXPECT_LE(browser.script("return document.documentElement.scrollWidth - "
                           "document.documentElement.clientWidth").get<int>(), 0)
      << "the page scrolls sideways";
  const json shot = browser.session("GET", "/screenshot");
  if (const char* out = std::getenv("HEED_WATCH_PAGE_SCREENSHOT")) {
    std::ofstream(out, std::ios::binary) << shot["value"].get<std::string>();  // base64 PNG
  }
}

}  // namespace
}  // namespace heed::serve
