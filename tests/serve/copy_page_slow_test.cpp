// The live page of `heed serve` for a model with copy attention (model.copy), in Debian's
// headless Chromium as tests/serve/live_page_slow_test.cpp drives it: a model trained to
// answer "my name is X" with "hello X" is served, a sentence with a name it never saw is
// typed, and the attention map shows a p_gen column (a bar per output token, as wide as the
// API's p_gen) with the copied name marked in its row label, as the API reports it. Skipped
// when chromium or chromium-driver is not installed (tools/setup-browser.sh installs both).
#include <gtest/gtest.h>
#include <httplib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
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

TEST(CopyPage, TheAttentionMapShowsPGenAndMarksTheCopiedWord) {
  if (!fs::exists(kChromium) || !fs::exists(kDriver))
    GTEST_SKIP() << "needs Debian's chromium and chromium-driver (tools/setup-browser.sh)";
  testing::ScratchDir dir("heed_copy_page");
  // Made-up names, each at most twice: none is in either vocabulary (vocab_min_freq 3).
  std::string src, tgt;
  Rng rng(3);
  for (int i = 0; i < 600; ++i) {
    std::string name;
    for (int k = 0; k < 3; ++k) {
      name += "bdfgklmnprstvz"[rng.below(14)];
      name += "aeiou"[rng.below(5)];
    }
    src += (i % 2 ? "my name is " + name : "call me " + name) + "\n";
    tgt += "hello " + name + "\n";
  }
  const std::string config = dir.file(
      "config.yaml",
      "data:\n  train_source: " + dir.file("s.txt", src) + "\n  train_target: " +
          dir.file("t.txt", tgt) +
          "\n  source: {tokenizer: whitespace, vocab_min_freq: 3}\n"
          "  target: {tokenizer: whitespace, vocab_min_freq: 3}\n"
          "model:\n  kind: bahdanau\n  copy: true\n  emb_dim: 16\n  enc_hidden: 24\n"
          "  dec_hidden: 24\ntraining:\n  lr: 0.01\n  max_tokens: 400\n  max_steps: 80\n"
          "  threads: 1\noutput: " + dir.path("model") + "\n");
  const auto trained = testing::run_heed("train " + config);
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  const LineTranslator translator = LineTranslator::load({{dir.path("model"), "best"}});
  ServerOptions options;
  options.port = 0;
  Server server(translator, "model", options);
  const int port = server.bind();
  std::thread serving([&] { server.run(); });

  const std::string sentence = "my name is zuxaqor";
  httplib::Client api("127.0.0.1", port);
  const auto answer = api.Post(
      "/translate", json{{"sentences", {sentence}}, {"beam", 1}, {"attention", true}}.dump(),
      "application/json");
  ASSERT_TRUE(answer);
  const json hyp = json::parse(answer->body)["translations"][0]["nbest"][0];
  EXPECT_EQ(hyp["text"], "hello zuxaqor");
  ASSERT_EQ(hyp["p_gen"].size(), 3u);
  EXPECT_EQ(hyp["copied"], json({false, true, false}));

  {
    Browser browser(dir.path("profile"));
    browser.session("POST", "/url", {{"url", "http://127.0.0.1:" + std::to_string(port) + "/"}});
    EXPECT_TRUE(browser.wait_for("return document.getElementById('model').textContent"
                                 ".includes('model')"));
    browser.script("document.getElementById('input').value = '" + sentence +
                   "'; document.getElementById('beam').value = '1';"
                   " document.getElementById('go').click(); return true;");
    ASSERT_TRUE(
        browser.wait_for("return document.querySelectorAll('table.attention tbody tr').length"));
    EXPECT_EQ(browser.script("return document.querySelector('.output').textContent"),
              "hello zuxaqor");
    // A p_gen column in the attention map only; one bar per output token.
    EXPECT_EQ(browser.script("return document.querySelectorAll('table.attention thead th.pgen')"
                             ".length"), 1);
    EXPECT_EQ(browser.script("return document.querySelectorAll('table.saliency th.pgen').length"),
              0);
    EXPECT_EQ(browser.script("return document.querySelectorAll('table.attention td.pgen span')"
                             ".length"), 3);
    // The copied name's label is marked, in both maps; the generated words' are not.
    EXPECT_EQ(browser.script("return [...document.querySelectorAll('table.attention th.out')]"
                             ".map(t => t.classList.contains('copied'))"),
              json({false, true, false}));
    EXPECT_EQ(browser.script("return document.querySelector('table.attention th.out.copied')"
                             ".textContent"), "zuxaqor");
    EXPECT_EQ(browser.script("return [...document.querySelectorAll('table.saliency th.out')]"
                             ".map(t => t.classList.contains('copied'))"),
              json({false, true, false}));
    // Each bar is p_gen of the whole cell's width, as the API says.
    const json widths = browser.script(
        "return [...document.querySelectorAll('table.attention td.pgen')].map(td => "
        "td.querySelector('span').getBoundingClientRect().width / "
        "(td.getBoundingClientRect().width - 4))");  // the cell's 2 px padding on each side
    ASSERT_EQ(widths.size(), 3u);
    for (std::size_t t = 0; t < 3; ++t)
      EXPECT_NEAR(widths[t].get<double>(), hyp["p_gen"][t].get<double>(), 0.05) << t;
    // The focus line says how the selected token came about.
    EXPECT_NE(browser.script("return document.querySelector('.focus').textContent")
                  .get<std::string>().find("(generated, p_gen"),
              std::string::npos);
    // The coverage row: off for a model without model.coverage (/health says so), and when
    // ticked one bar per source token, the column sums of the API's attention, orange past 1.
    EXPECT_EQ(browser.script("return document.querySelectorAll('table.attention tfoot td.cov').length"), 0);
    EXPECT_EQ(json::parse(api.Get("/health")->body)["coverage"], false);
    browser.script("document.getElementById('coverage').click(); return true;");
    ASSERT_TRUE(browser.wait_for("return document.querySelectorAll('table.attention tfoot td.cov').length"));
    const json sums = browser.script(
        "return [...document.querySelectorAll('table.attention tfoot td.cov')].map(td => "
        "[parseFloat(td.title.split('coverage ')[1]), td.classList.contains('over'), "
        "td.querySelector('span').getBoundingClientRect().height / td.getBoundingClientRect().height])");
    const json& alpha = hyp["attention"];
    ASSERT_EQ(sums.size(), alpha[0].size());
    for (std::size_t j = 0; j < sums.size(); ++j) {
      double c = 0;
      for (const json& row : alpha) c += row[j].get<double>();
      EXPECT_NEAR(sums[j][0].get<double>(), c, 2e-3) << j;
      EXPECT_EQ(sums[j][1].get<bool>(), c > 1.001) << j;
      EXPECT_NEAR(sums[j][2].get<double>(), std::min(c, 2.0) / 2, 0.08) << j;
    }
    EXPECT_EQ(browser.script("return document.querySelectorAll('table.saliency tfoot').length"), 0);
    browser.script("document.querySelector('.maps').scrollIntoView(); return true;");
    const json shot = browser.session("GET", "/screenshot");
    if (const char* out = std::getenv("HEED_COPY_PAGE_SCREENSHOT"))
      std::ofstream(out, std::ios::binary) << shot["value"].get<std::string>();  // base64 PNG
  }
  server.stop();
  serving.join();
}

}  // namespace
}  // namespace heed::serve
