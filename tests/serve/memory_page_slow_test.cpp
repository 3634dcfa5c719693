// The live page of `heed serve` for a memory network (model.kind memn2n) in a real browser:
// Debian's headless Chromium driven by chromium-driver (tests/support/browser.h), kept off the
// network. The page learns the kind from /health and shows the story form, prefilled with
// /info's example; a story and a question are typed and submitted, and the hops table appears
// with a row per statement in memory and a column per hop (as POST /answer reports them), the
// most weighted statement of each hop outlined. At 375 px the page does not scroll sideways and
// the table fits; words the model never saw are underlined and the note says how they were
// read; a refused request shows its message. One small model is trained and served for all of
// them. Skipped when chromium or chromium-driver is not installed (tools/setup-browser.sh).
#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_test_util.h"
#include "heed/serve/server.h"
#include "heed/store/model_dir.h"
#include "support/babi_moves.h"
#include "support/browser.h"

namespace heed::serve {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using testing::Browser;
using testing::kChromium;
using testing::kDriver;

// A memory network trained for a few epochs, served on a free port for every test of the suite.
class MemoryPage : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!fs::exists(kChromium) || !fs::exists(kDriver)) return;
    dir_ = new testing::ScratchDir("heed_memory_page");
    fs::create_directories(dir_->path("babi"));
    dir_->file("babi/qa1_moves_train.txt", testing::babi_moves_text(200, 31));
    dir_->file("babi/qa1_moves_test.txt", testing::babi_moves_text(10, 32));
    const std::string config = dir_->file("c.yaml",
        "data:\n"
        "  babi: {dir: " + dir_->path("babi") + ", tasks: '1', dev_fraction: 0.1}\n"
        "model: {kind: memn2n, emb_dim: 16, hops: 3, memory_size: 10}\n"
        "training: {optimizer: adam, lr: 0.01, max_sentences: 32, max_tokens: 100000,\n"
        "           max_epochs: 10, validate_every: 100, metric: error, threads: 1}\n"
        "output: " + dir_->path("m") + "\n");
    const auto trained = testing::run_heed("train " + config);
    ASSERT_EQ(trained.exit_code, 0) << trained.output;
    model_ = new LoadedMemoryModel(load_memory_model_dir(dir_->path("m")));
    ServerOptions options;
    options.port = 0;
    options.model_dirs = {dir_->path("m")};
    server_ = new Server(*model_, "moves", options);
    port_ = server_->bind();
    serving_ = new std::thread([] { server_->run(); });
  }
  static void TearDownTestSuite() {
    if (server_) server_->stop();
    if (serving_) serving_->join();
    delete serving_;
    delete server_;
    delete model_;
    delete dir_;
    serving_ = nullptr;
    server_ = nullptr;
    model_ = nullptr;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!fs::exists(kChromium) || !fs::exists(kDriver))
      GTEST_SKIP() << "needs Debian's chromium and chromium-driver (tools/setup-browser.sh)";
    ASSERT_NE(server_, nullptr) << "the memory network for the page was not trained";
  }
  static std::string url(const std::string& query = "") {
    return "http://127.0.0.1:" + std::to_string(port_) + "/" + query;
  }
  // What the API says of a story and a question.
  static json api_answer(const std::string& story, const std::string& question) {
    httplib::Client api("127.0.0.1", port_);
    const auto res = api.Post("/answer", json{{"story", story}, {"question", question}}.dump(),
                              "application/json");
    if (!res || res->status != 200) return json();
    return json::parse(res->body);
  }
  static void save_screenshot(Browser& browser, const char* variable) {
    const json shot = browser.session("GET", "/screenshot");
    EXPECT_FALSE(shot["value"].get<std::string>().empty());
    if (const char* out = std::getenv(variable))
      std::ofstream(out, std::ios::binary) << shot["value"].get<std::string>();  // base64 PNG
  }

  static testing::ScratchDir* dir_;
  static LoadedMemoryModel* model_;
  static Server* server_;
  static std::thread* serving_;
  static int port_;
};
testing::ScratchDir* MemoryPage::dir_ = nullptr;
LoadedMemoryModel* MemoryPage::model_ = nullptr;
Server* MemoryPage::server_ = nullptr;
std::thread* MemoryPage::serving_ = nullptr;
int MemoryPage::port_ = 0;

// Of each hop's column, the row whose cell is outlined (-1: none, -2: more than one).
constexpr const char* kOutlinedRows = R"js(
  const rows = [...document.querySelectorAll('table.hops tbody tr')];
  const hops = document.querySelectorAll('table.hops thead th.hop').length;
  return [...Array(hops).keys()].map((k) => {
    const top = rows.map((r, i) => r.querySelectorAll('td')[k].classList.contains('top') ? i : -1)
                    .filter((i) => i >= 0);
    return top.length === 1 ? top[0] : top.length ? -2 : -1;
  });)js";

TEST_F(MemoryPage, TypeAStoryAndAQuestionSeeTheHops) {
  testing::ScratchDir scratch("heed_memory_page_browser");
  const std::string story =
      "Mary went to the kitchen.\nJohn went to the garden.\nMary moved to the office.\n"
      "Sandra journeyed to the hallway.\nJohn travelled to the bathroom.";
  const json expected = api_answer(story, "Where is John?");
  ASSERT_TRUE(expected.is_object());
  ASSERT_EQ(expected["statements"].size(), 5u);
  ASSERT_EQ(expected["hops"].size(), 3u);

  Browser browser(scratch.path("profile"));
  browser.session("POST", "/window/rect", {{"width", 1280}, {"height", 900}});
  browser.session("POST", "/url", {{"url", url()}});
  EXPECT_EQ(browser.script("return document.title").get<std::string>(),
            "heed: what the model attends to");
  // The kind comes from /health: the story form, not the translation form; /info's example in it.
  ASSERT_TRUE(browser.wait_for("return document.getElementById('model').textContent"
                               ".includes('memory network')"));
  EXPECT_EQ(browser.script("return getComputedStyle(document.getElementById('translate-view'))"
                           ".display"),
            "none");
  httplib::Client api("127.0.0.1", port_);
  const json info = json::parse(api.Get("/info")->body);
  EXPECT_EQ(browser.script("return document.getElementById('story').value"),
            info["example"]["story"]);
  EXPECT_EQ(browser.script("return document.getElementById('question').value"),
            info["example"]["question"]);

  const std::string story_box = browser.element("#story");
  browser.session("POST", "/element/" + story_box + "/clear");
  browser.session("POST", "/element/" + story_box + "/value", {{"text", story}});
  const std::string question_box = browser.element("#question");
  browser.session("POST", "/element/" + question_box + "/clear");
  browser.session("POST", "/element/" + question_box + "/value", {{"text", "Where is John?"}});
  EXPECT_EQ(browser.script("return document.getElementById('story').value"), story);
  browser.session("POST", "/element/" + browser.element("#ask") + "/click");
  ASSERT_TRUE(browser.wait_for("return document.querySelectorAll('table.hops tbody tr').length"));

  EXPECT_EQ(browser.script("return document.querySelectorAll('table.hops tbody tr').length"), 5);
  EXPECT_EQ(browser.script("return document.querySelectorAll('table.hops thead th.hop').length"), 3);
  EXPECT_EQ(browser.script("return [...document.querySelectorAll('table.hops tbody tr')]"
                           ".map((r) => r.querySelectorAll('td').length)"),
            json({3, 3, 3, 3, 3}));
  EXPECT_EQ(browser.script("return document.querySelector('.qa .answer').textContent"),
            expected["answer"]);
  EXPECT_EQ(browser.script("return document.querySelector('table.hops tbody tr th.stmt')"
                           ".textContent"),
            "mary went to the kitchen");
  // Each hop outlines one statement: the one the API gives the largest weight.
  json tops = json::array();
  for (const json& hop : expected["hops"]) {
    std::size_t best = 0;
    for (std::size_t i = 0; i < hop.size(); ++i)
      if (hop[i].get<double>() > hop[best].get<double>()) best = i;
    tops.push_back(best);
  }
  EXPECT_EQ(browser.script(kOutlinedRows), tops);
  // Every cell shows its weight, and a colour of the viridis scale (the first row's first cell).
  char first[16];
  std::snprintf(first, sizeof first, "%.2f", expected["hops"][0][0].get<double>());
  EXPECT_EQ(browser.script("return document.querySelector('table.hops tbody td').textContent"),
            first);
  EXPECT_NE(browser.script("return document.querySelector('table.hops tbody td').style"
                           ".backgroundColor"),
            "");
  EXPECT_NE(browser.script("return document.querySelector('.map.hops .legend').textContent")
                .get<std::string>()
                .find("attention weight"),
            std::string::npos);
  EXPECT_EQ(browser.script("return document.getElementById('answer-status').textContent"
                           ".slice(0, 4)"),
            "done");
  save_screenshot(browser, "HEED_MEMORY_PAGE_SCREENSHOT");
}

// At 375 px (a phone) the page does not scroll sideways and the hops table fits the window; the
// words the model never saw are underlined, and the note says how they were read. A link's
// story and question are answered at once.
TEST_F(MemoryPage, PhoneWidthUnknownWordsAndALinksStory) {
  testing::ScratchDir scratch("heed_memory_page_browser");
  Browser browser(scratch.path("profile"));
  browser.session("POST", "/window/rect", {{"width", 375}, {"height", 800}});
  const std::string story =
      "1 Mary went to the kitchen.\n2 John went to the garden.\n3 Mary moved to the office "
      "after a long and winding walk through the zorb.\n4 Sandra journeyed to the hallway.";
  browser.session("POST", "/url", {{"url", url("?story=" + httplib::detail::encode_query_param(story) +
                                               "&question=Where+is+Mary%3F")}});
  ASSERT_TRUE(browser.wait_for("return document.querySelectorAll('table.hops tbody tr').length"));
  EXPECT_LE(browser.script("return window.innerWidth").get<int>(), 375);
  EXPECT_LE(browser.script("return document.documentElement.scrollWidth - "
                           "document.documentElement.clientWidth").get<int>(), 0)
      << "the page scrolls sideways";
  EXPECT_LE(browser.script("return Math.ceil(document.querySelector('table.hops')"
                           ".getBoundingClientRect().right) - document.documentElement.clientWidth")
                .get<int>(),
            0)
      << "the hops table is wider than the phone";
  EXPECT_EQ(browser.script("return document.querySelectorAll('table.hops tbody tr').length"), 4);
  EXPECT_EQ(browser.script("return [...document.querySelectorAll('table.hops tbody th.line')]"
                           ".map((th) => th.textContent)"),
            json({"1", "2", "3", "4"}));
  const json unknown = browser.script(
      "return [...document.querySelectorAll('.qa .unknown')].map((e) => e.textContent)");
  EXPECT_EQ(unknown, json({"after", "a", "long", "and", "winding", "walk", "through", "zorb"}));
  EXPECT_NE(browser.script("return document.querySelector('.qa .warning').textContent")
                .get<std::string>()
                .find("the model never saw"),
            std::string::npos);
  browser.script("document.querySelector('.qa').scrollIntoView(); return true;");
  save_screenshot(browser, "HEED_MEMORY_PAGE_SCREENSHOT_NARROW");
}

TEST_F(MemoryPage, ARefusedStoryShowsItsMessage) {
  testing::ScratchDir scratch("heed_memory_page_browser");
  Browser browser(scratch.path("profile"));
  browser.session("POST", "/url", {{"url", url()}});
  ASSERT_TRUE(browser.wait_for("return document.getElementById('story').value"));
  browser.script(R"js(document.getElementById('story').value = 'Mary went to the kitchen.';
                      document.getElementById('question').value = '';
                      document.getElementById('ask').click(); return true;)js");
  ASSERT_TRUE(browser.wait_for(
      "return document.getElementById('answer-status').className === 'error'"));
  const std::string status =
      browser.script("return document.getElementById('answer-status').textContent");
  EXPECT_NE(status.find("error: no question"), std::string::npos) << status;
  EXPECT_EQ(browser.script("return document.querySelectorAll('table.hops').length"), 0);
}

}  // namespace
}  // namespace heed::serve
