// The live page of `heed serve` for a Transformer (model.kind transformer), in Debian's
// headless Chromium as tests/serve/live_page_slow_test.cpp drives it: under the attention and
// saliency maps, menus pick one of the three attentions (encoder-decoder, encoder
// self-attention, decoder self-attention), its layer and a head or the heads averaged, and the
// map below changes to what the API's "heads" says. At 390 px the page does not scroll
// sideways. Skipped when chromium or chromium-driver is not installed
// (tools/setup-browser.sh installs both).
#include <gtest/gtest.h>
#include <httplib.h>

#include <cstdio>
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

// The weights of the heads map on screen, row by row, read back from the cells' titles
// ("tok <- src: 0.123", three significant digits).
constexpr const char* kShownJs =
    "return [...document.querySelectorAll('table.heads tbody tr')].map(r => "
    "[...r.querySelectorAll('td')].map(td => parseFloat(td.title.split(': ').pop())))";

// Picks `value` in the menu `css` as a person does (the change event follows).
std::string pick(const std::string& css, const std::string& value) {
  return "const s = document.querySelector('" + css + "'); s.value = '" + value +
         "'; s.dispatchEvent(new Event('change')); return true;";
}

void expect_shown(Browser& browser, const json& want) {
  const json shown = browser.script(kShownJs);
  ASSERT_EQ(shown.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    ASSERT_EQ(shown[i].size(), want[i].size()) << i;
    for (std::size_t j = 0; j < want[i].size(); ++j)
      EXPECT_NEAR(shown[i][j].get<double>(), want[i][j].get<double>(),
                  5e-3 * want[i][j].get<double>() + 1e-6)
          << i << " " << j;
  }
}

TEST(TransformerPage, PickTheAttentionTheLayerAndTheHeadAndTheMapChanges) {
  if (!fs::exists(kChromium) || !fs::exists(kDriver))
    GTEST_SKIP() << "needs Debian's chromium and chromium-driver (tools/setup-browser.sh)";
  testing::ScratchDir dir("heed_transformer_page");
  Rng rng(5);
  const auto [src, tgt] = testing::reversal_lines(rng, 400, 3, 4, 6);
  const std::string config = dir.file(
      "config.yaml", "data:\n  train_source: " + dir.file("s.txt", src) +
                         "\n  train_target: " + dir.file("t.txt", tgt) +
                         "\nmodel:\n  kind: transformer\n  d_model: 16\n  heads: 2\n"
                         "  ff_dim: 32\n  enc_layers: 2\n  dec_layers: 3\ntraining:\n"
                         "  lr: 0.003\n  schedule: warmup\n  warmup_steps: 20\n"
                         "  max_tokens: 300\n  max_steps: 150\n  validate_every: 150\n"
                         "  threads: 1\noutput: " + dir.path("model") + "\n");
  const auto trained = testing::run_heed("train " + config);
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  const LineTranslator translator = LineTranslator::load({{dir.path("model"), "best"}});
  ServerOptions options;
  options.port = 0;
  Server server(translator, "model", options);
  const int port = server.bind();
  std::thread serving([&] { server.run(); });

  const std::string sentence = "abcd";
  httplib::Client api("127.0.0.1", port);
  const auto answer = api.Post(
      "/translate",
      json{{"sentences", {sentence}}, {"beam", 1}, {"attention", true}, {"heads", true}}.dump(),
      "application/json");
  ASSERT_TRUE(answer);
  const json t = json::parse(answer->body)["translations"][0];
  const json heads = t["nbest"][0]["heads"];
  ASSERT_EQ(heads["count"], 2);
  const std::size_t rows = heads["rows"], m = t["source"].size();
  ASSERT_GE(rows, 2u);
  // The heads averaged, as the page should draw them.
  const auto average = [](const json& layer) {
    json out = layer[0];
    for (std::size_t i = 0; i < out.size(); ++i)
      for (std::size_t j = 0; j < out[i].size(); ++j)
        out[i][j] = (layer[0][i][j].get<double>() + layer[1][i][j].get<double>()) / 2;
    return out;
  };

  {
    Browser browser(dir.path("profile"));
    browser.session("POST", "/window/rect", {{"width", 1280}, {"height", 1000}});
    browser.session("POST", "/url", {{"url", "http://127.0.0.1:" + std::to_string(port) + "/"}});
    EXPECT_TRUE(browser.wait_for("return document.getElementById('model').textContent"
                                 ".includes('model')"));
    browser.script("document.getElementById('input').value = '" + sentence +
                   "'; document.getElementById('beam').value = '1';"
                   " document.getElementById('go').click(); return true;");
    ASSERT_TRUE(browser.wait_for("return document.querySelectorAll('table.heads tbody tr').length"));
    // At first: the encoder-decoder attention's last layer, its heads averaged (the model's
    // attention), a row per output token and a column per source token.
    EXPECT_EQ(browser.script("return document.querySelector('.heads-attention').value"), "cross");
    EXPECT_EQ(browser.script("return document.querySelectorAll('.heads-layer option').length"), 3);
    EXPECT_EQ(browser.script("return document.querySelector('.heads-layer').value"), "3");
    EXPECT_EQ(browser.script("return document.querySelector('.heads-head').value"), "avg");
    EXPECT_EQ(browser.script("return document.querySelectorAll('table.heads thead th.src').length"),
              m);
    expect_shown(browser, average(heads["cross"][2]));
    // Head 2 of layer 1: another map.
    browser.script(pick(".heads-layer", "1"));
    browser.script(pick(".heads-head", "1"));
    expect_shown(browser, heads["cross"][0][1]);
    const json head2 = browser.script(kShownJs);
    browser.script(pick(".heads-head", "0"));
    expect_shown(browser, heads["cross"][0][0]);
    EXPECT_NE(browser.script(kShownJs), head2);  // the map changed
    EXPECT_NE(browser.script("return document.querySelector('.heads .name').textContent")
                  .get<std::string>()
                  .find("layer 1, head 1"),
              std::string::npos);
    // The encoder's self-attention: two layers, source by source; the layer picked is kept.
    browser.script(pick(".heads-attention", "encoder"));
    EXPECT_EQ(browser.script("return document.querySelectorAll('.heads-layer option').length"), 2);
    EXPECT_EQ(browser.script("return document.querySelector('.heads-layer').value"), "1");
    expect_shown(browser, heads["encoder"][0][0]);
    browser.script(pick(".heads-layer", "2"));
    browser.script(pick(".heads-head", "avg"));
    expect_shown(browser, average(heads["encoder"][1]));
    // The decoder's self-attention: columns <s> and the outputs before, lower triangular.
    browser.script(pick(".heads-attention", "decoder"));
    EXPECT_EQ(browser.script("return document.querySelectorAll('.heads-layer option').length"), 3);
    browser.script(pick(".heads-head", "1"));
    expect_shown(browser, heads["decoder"][1][1]);
    EXPECT_EQ(browser.script("return [...document.querySelectorAll('table.heads thead th.src')]"
                             ".map(th => th.textContent)"),
              heads["decoder_inputs"]);
    EXPECT_NE(browser.script("return document.querySelector('.heads .axes').textContent")
                  .get<std::string>().find("decoder input"),
              std::string::npos);
    browser.script(pick(".heads-attention", "cross"));
    browser.script(pick(".heads-layer", "3"));
    browser.script(pick(".heads-head", "avg"));
    browser.script("document.querySelector('.heads').scrollIntoView(); return true;");
    if (const char* out = std::getenv("HEED_TRANSFORMER_PAGE_SCREENSHOT")) {
      std::ofstream(std::string(out) + "-1280.b64", std::ios::binary)
          << browser.session("GET", "/screenshot")["value"].get<std::string>();
    }
    // At 390 px (a phone) the page itself never scrolls sideways.
    browser.session("POST", "/window/rect", {{"width", 390}, {"height", 900}});
    EXPECT_LE(browser.script("return document.documentElement.scrollWidth - window.innerWidth")
                  .get<int>(),
              0);
    browser.script("document.querySelector('.heads').scrollIntoView(); return true;");
    if (const char* out = std::getenv("HEED_TRANSFORMER_PAGE_SCREENSHOT")) {
      std::ofstream(std::string(out) + "-390.b64", std::ios::binary)
          << browser.session("GET", "/screenshot")["value"].get<std::string>();
    }
  }
  server.stop();
  serving.join();
}

}  // namespace
}  // namespace heed::serve
