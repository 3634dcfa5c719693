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
#include "heed/serve/server.h"

namespace heed::serve {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr const char* kChromium = "/usr/bin/chromium";
constexpr const char* kDriver = "/usr/bin/chromedriver";

// A chromedriver process on a free port, and one WebDriver session in it.
class Browser {
 public:
  explicit Browser(const std::string& profile) {
    port_ = 9515 + static_cast<int>(::getpid() % 1000);
    pid_ = ::fork();
    if (pid_ == 0) {
      const std::string flag = "--port=" + std::to_string(port_);
      ::execl(kDriver, "chromedriver", flag.c_str(), "--silent", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client_->set_read_timeout(60, 0);
    for (int i = 0; i < 100 && !client_->Get("/status"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const json caps = {
        {"capabilities",
         {{"alwaysMatch",
           {{"goog:chromeOptions",
             {{"binary", kChromium},
              {"args", {"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                        "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync",
                        "--disable-dev-shm-usage", "--user-data-dir=" + profile}}}}}}}}};
    const json r = call("POST", "/session", caps);
    session_ = r["value"]["sessionId"].get<std::string>();
  }
  ~Browser() {
    if (!session_.empty()) client_->Delete("/session/" + session_);
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, nullptr, 0);
  }
  json call(const std::string& method, const std::string& path, const json& body = json::object()) {
    httplib::Result res = method == "GET"      ? client_->Get(path)
                          : method == "DELETE" ? client_->Delete(path)
                                               : client_->Post(path, body.dump(), "application/json");
    if (!res) throw std::runtime_error("chromedriver: no answer to " + path);
    json j = json::parse(res->body);
    if (res->status != 200) throw std::runtime_error("chromedriver: " + res->body);
    return j;
  }
  json session(const std::string& method, const std::string& path, const json& body = json::object()) {
    return call(method, "/session/" + session_ + path, body);
  }
  std::string element(const std::string& css) {
    const json r = session("POST", "/element", {{"using", "css selector"}, {"value", css}});
    return r["value"].begin().value().get<std::string>();
  }
  std::vector<std::string> elements(const std::string& css) {
    const json r = session("POST", "/elements", {{"using", "css selector"}, {"value", css}});
    std::vector<std::string> ids;
    for (const auto& e : r["value"]) ids.push_back(e.begin().value().get<std::string>());
    return ids;
  }
  json script(const std::string& code) {
    return session("POST", "/execute/sync", {{"script", code}, {"args", json::array()}})["value"];
  }
  // Polls the script until it returns something truthy; false after 20 s.
  bool wait_for(const std::string& code) {
    for (int i = 0; i < 200; ++i) {
      json v = script(code);
      const bool truthy = v.is_boolean()  ? v.get<bool>()
                          : v.is_number() ? v.get<double>() != 0
                          : v.is_string() ? !v.get<std::string>().empty()
                                          : !v.is_null();
      if (truthy) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::unique_ptr<httplib::Client> client_;
  std::string session_;
};

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

  const Translator translator = Translator::load({{dir.path("model"), "best"}});
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
