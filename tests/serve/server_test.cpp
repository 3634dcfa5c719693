// The server end to end, in process: a tiny model trained once per suite by the heed binary,
// a serve::Server on a free loopback port, and cpp-httplib's client.
#include "heed/serve/server.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "cli/cli_test_util.h"
#include "heed/base/random.h"

namespace heed::serve {
namespace {

using nlohmann::json;
using testing::run_heed;
using testing::ScratchDir;

class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("heed_serve");
    Rng rng(3);
    const auto [src, tgt] = testing::reversal_lines(rng, 300, 2, 6, 6);
    const std::string config = dir_->file(
        "config.yaml", "data:\n  train_source: " + dir_->file("s.txt", src) +
                           "\n  train_target: " + dir_->file("t.txt", tgt) +
                           "\nmodel:\n  kind: bahdanau\n  emb_dim: 8\n  enc_hidden: 12\n"
                           "  dec_hidden: 12\ntraining:\n  lr: 0.02\n  max_tokens: 200\n"
                           "  max_steps: 20\n  validate_every: 10\n  threads: 1\n");
    for (const char* kind : {"bahdanau", "noattn"}) {
      const auto r = run_heed("train " + config + " --set output=" + dir_->path(kind) +
                              " --set model.kind=" + kind);
      ASSERT_EQ(r.exit_code, 0) << r.output;
    }
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }

  // A server for the model `kind` on a free port, serving on a thread until the test ends.
  struct Running {
    std::unique_ptr<LineTranslator> translator;
    std::unique_ptr<Server> server;
    std::thread thread;
    int port = 0;
    ~Running() {
      server->stop();
      thread.join();
    }
    httplib::Client client() const {
      httplib::Client c("127.0.0.1", port);
      c.set_read_timeout(30, 0);
      return c;
    }
  };
  static std::unique_ptr<Running> start(const ServerOptions& options, const char* kind = "bahdanau") {
    auto r = std::make_unique<Running>();
    r->translator = std::make_unique<LineTranslator>(LineTranslator::load({{dir_->path(kind), "best"}}));
    ServerOptions o = options;
    o.port = 0;
    r->server = std::make_unique<Server>(*r->translator, kind, o);
    r->port = r->server->bind();
    r->thread = std::thread([s = r->server.get()] { s->run(); });
    return r;
  }
  static std::string post(const Running& r, const std::string& body, int* status) {
    auto c = r.client();
    auto res = c.Post("/translate", body, "application/json");
    if (!res) {
      *status = -1;
      return "";
    }
    *status = res->status;
    return res->body;
  }

  static ScratchDir* dir_;
};
ScratchDir* ServerTest::dir_ = nullptr;

TEST_F(ServerTest, TranslatesLikeTheCommandLine) {
  const auto r = start({});
  const std::vector<std::string> sentences = {"abc", "", "fedcba", "aaf"};
  int status = 0;
  const json body = json::parse(post(*r, json{{"sentences", sentences}}.dump(), &status));
  ASSERT_EQ(status, 200) << body;
  std::string input;
  for (const auto& s : sentences) input += s + "\n";
  const auto cli = run_heed("translate -m " + dir_->path("bahdanau") + " -i " +
                            dir_->file("in.txt", input));
  ASSERT_EQ(cli.exit_code, 0) << cli.output;
  std::istringstream lines(cli.output);
  ASSERT_EQ(body["translations"].size(), sentences.size());
  for (const auto& t : body["translations"]) {
    std::string expected;
    std::getline(lines, expected);
    const std::string got = t["nbest"].empty() ? "" : t["nbest"][0]["text"].get<std::string>();
    EXPECT_EQ(got, expected);
    EXPECT_FALSE(t["skipped"].get<bool>());
  }
  EXPECT_EQ(body["model"], "bahdanau");
  auto c = r->client();
  const auto health = c.Get("/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(json::parse(health->body)["served"], 1);
}

TEST_F(ServerTest, AttentionRowsAndAlignmentsHaveTheSentencesShape) {
  const auto r = start({});
  int status = 0;
  const json body = json::parse(post(
      *r, R"({"sentences": ["abcd", "ef"], "beam": 3, "nbest": 2, "attention": true,
              "alignment": "hard"})",
      &status));
  ASSERT_EQ(status, 200) << body;
  for (const auto& t : body["translations"]) {
    const std::size_t src = t["source"].size();  // pieces + EOS
    ASSERT_EQ(t["nbest"].size(), 2u);
    for (const auto& h : t["nbest"]) {
      ASSERT_EQ(h["attention"].size(), h["output"].size());
      for (const auto& row : h["attention"]) {
        ASSERT_EQ(row.size(), src);
        double sum = 0;
        for (const auto& w : row) sum += w.get<double>();
        EXPECT_NEAR(sum, 1.0, 1e-4);
      }
      std::istringstream links(h["alignment"].get<std::string>());
      for (std::string l; links >> l;) EXPECT_LT(std::stoul(l.substr(0, l.find('-'))), src - 1);
    }
  }
}

// Saliency maps of the best output, for models with and without attention.
TEST_F(ServerTest, SaliencyRowsOfTheBestOutput) {
  for (const char* kind : {"bahdanau", "noattn"}) {
    const auto r = start({}, kind);
    int status = 0;
    const json body = json::parse(
        post(*r, R"({"sentences": ["abcd", "", "fe"], "beam": 2, "nbest": 2, "saliency": true})",
             &status));
    ASSERT_EQ(status, 200) << body;
    for (const auto& t : body["translations"]) {
      if (t["nbest"].empty()) continue;
      const auto& best = t["nbest"][0];
      ASSERT_TRUE(best.contains("saliency")) << best;
      ASSERT_EQ(best["saliency"].size(), best["output"].size());
      double total = 0;
      for (const auto& row : best["saliency"]) {
        ASSERT_EQ(row.size(), t["source"].size());
        for (const auto& v : row) {
          EXPECT_GE(v.get<double>(), 0.0);
          total += v.get<double>();
        }
      }
      EXPECT_GT(total, 0.0) << kind;
      EXPECT_FALSE(t["nbest"][1].contains("saliency"));  // the best hypothesis only
    }
  }
}

TEST_F(ServerTest, EveryRefusalIsJsonWithItsStatus) {
  ServerOptions o;
  o.max_body_bytes = 200;
  o.limits.max_sentences = 2;
  const auto r = start(o);
  int status = 0;
  struct Case {
    std::string body;
    int status;
    std::string words;
  };
  for (const Case& c : std::vector<Case>{
           {"not json", 400, "not valid JSON"},
           {R"({"sentences": ["a"], "beam": 2, "nbest": 5})", 400, "larger than \"beam\""},
           {R"({"sentences": ["a", "b", "c"]})", 413, "too many sentences"},
           {R"({"sentences": [")" + std::string(300, 'a') + R"("]})", 413, "too large"},
       }) {
    const std::string answer = post(*r, c.body, &status);
    EXPECT_EQ(status, c.status) << c.body;
    const json j = json::parse(answer, nullptr, false);
    ASSERT_TRUE(j.is_object()) << answer;
    EXPECT_NE(j["error"].get<std::string>().find(c.words), std::string::npos) << answer;
  }
  auto c = r->client();
  auto nope = c.Get("/nope");
  ASSERT_TRUE(nope);
  EXPECT_EQ(nope->status, 404);
  EXPECT_NE(nope->body.find("no such path"), std::string::npos);
  auto get = c.Get("/translate");
  ASSERT_TRUE(get);
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");
  auto page = c.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("fetch(\"/translate\""), std::string::npos);

  const auto noattn = start({}, "noattn");
  const std::string answer = post(*noattn, R"({"sentences": ["a"], "attention": true})", &status);
  EXPECT_EQ(status, 400);
  EXPECT_NE(answer.find("need a model with attention"), std::string::npos) << answer;
  EXPECT_EQ((post(*noattn, R"({"sentences": ["a"]})", &status), status), 200);
}

// One worker, a queue of 2: of many requests at once some are refused with 503 (JSON), the
// rest answered; nothing else happens. Requests waiting together share batches.
TEST_F(ServerTest, OverloadIsRefusedAndWaitingRequestsShareBatches) {
  ServerOptions o;
  o.service.queue = 2;
  o.service.workers = 1;
  o.connection_threads = 16;
  const auto r = start(o);
  std::string big = R"({"sentences": [)";
  for (int i = 0; i < 60; ++i) big += std::string(i ? "," : "") + "\"abcdefabcdef\"";
  big += R"(], "beam": 8})";
  std::vector<std::future<std::pair<int, std::string>>> answers;
  const auto send = [&](const std::string& body) {
    answers.push_back(std::async(std::launch::async, [&r, body] {
      int status = 0;
      std::string b = post(*r, body, &status);
      return std::make_pair(status, b);
    }));
  };
  // The big request first, and only once the worker decodes it the eleven small ones: two
  // wait, nine are refused, whatever the machine's speed (sanitizers included).
  send(big);
  auto health_now = [&] { return json::parse(r->client().Get("/health")->body); };
  for (int i = 0; i < 2000 && health_now()["decoding"] != 1; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  for (int i = 1; i < 12; ++i) send(R"({"sentences": ["abc", "de"], "beam": 2})");
  std::map<int, int> codes;
  for (auto& a : answers) {
    const auto [status, body] = a.get();
    ++codes[status];
    if (status == 503) {
      EXPECT_NE(body.find("overloaded"), std::string::npos) << body;
    }
  }
  EXPECT_EQ(codes[200] + codes[503], 12) << "other statuses: " << codes.size();
  EXPECT_GE(codes[200], 3);
  auto c = r->client();
  const json health = json::parse(c.Get("/health")->body);
  EXPECT_EQ(health["served"], codes[200]);
  EXPECT_EQ(health["refused"], codes[503]);
  // Up to two requests wait while the big one runs; they are decoded together.
  EXPECT_LT(health["batches"].get<int>(), codes[200]) << health;
}

// The binary: SIGTERM while requests are being answered lets every accepted request finish,
// then exits 0; a later connection is refused.
TEST_F(ServerTest, SigtermAnswersWhatWasAcceptedAndExitsZero) {
  int err[2];
  ASSERT_EQ(::pipe(err), 0);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(err[1], 2);
    ::close(err[0]);
    const std::string model = dir_->path("bahdanau");
    ::execl(testing::heed_binary().c_str(), "heed", "serve", "-m", model.c_str(), "--port", "0",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(err[1]);
  // "heed serve: DIR on http://127.0.0.1:PORT/ ..."
  std::string text;
  char buf[256];
  int port = 0;
  while (port == 0) {
    const ssize_t n = ::read(err[0], buf, sizeof buf);
    ASSERT_GT(n, 0) << text;
    text.append(buf, static_cast<std::size_t>(n));
    const auto at = text.find("127.0.0.1:");
    if (at != std::string::npos && text.find('/', at) != std::string::npos)
      port = std::stoi(text.substr(at + 10));
  }
  std::string body = R"({"sentences": [)";
  for (int i = 0; i < 40; ++i) body += std::string(i ? "," : "") + "\"abcdefabc\"";
  body += R"(], "beam": 6})";
  std::vector<std::future<int>> answers;
  for (int i = 0; i < 4; ++i)
    answers.push_back(std::async(std::launch::async, [&] {
      httplib::Client c("127.0.0.1", port);
      c.set_read_timeout(60, 0);
      auto res = c.Post("/translate", body, "application/json");
      return res ? res->status : -1;
    }));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  int answered = 0;
  for (auto& a : answers) {
    const int s = a.get();
    EXPECT_TRUE(s == 200 || s == -1) << s;  // answered, or never accepted
    answered += s == 200;
  }
  EXPECT_GE(answered, 1);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  for (ssize_t n; (n = ::read(err[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(err[0]);
  EXPECT_NE(text.find("heed serve: stopped"), std::string::npos) << text;
  httplib::Client late("127.0.0.1", port);
  EXPECT_FALSE(late.Get("/health"));
}

}  // namespace
}  // namespace heed::serve
