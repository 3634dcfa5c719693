// The server end to end, in process: a tiny model trained once per suite by the heed binary,
// a serve::Server on a free loopback port, and cpp-httplib's client.
#include "heed/serve/server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cmath>
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
    const std::string transformer = dir_->file(
        "transformer.yaml", "data:\n  train_source: " + dir_->path("s.txt") +
                                "\n  train_target: " + dir_->path("t.txt") +
                                "\nmodel:\n  kind: transformer\n  d_model: 8\n  heads: 2\n"
                                "  ff_dim: 16\n  enc_layers: 2\n  dec_layers: 3\ntraining:\n"
                                "  max_tokens: 200\n  max_steps: 10\n  validate_every: 10\n"
                                "  threads: 1\noutput: " + dir_->path("transformer") + "\n");
    const auto r = run_heed("train " + transformer);
    ASSERT_EQ(r.exit_code, 0) << r.output;
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
  // A server with the batching window: `workers` workers, a window of `wait`, a client
  // active for 30 s after its last request.
  static std::unique_ptr<Running> start_window(std::size_t workers, std::chrono::microseconds wait) {
    ServerOptions o;
    o.service.workers = workers;
    o.service.batch_wait = wait;
    o.service.active_client = std::chrono::seconds(30);
    return start(o);
  }
  // Two keep-alive clients (two connections) taking turns, `rounds` requests each; then
  // /health.
  static json take_turns(const Running& r, int rounds) {
    auto a = r.client(), b = r.client();
    a.set_keep_alive(true);
    b.set_keep_alive(true);
    const std::string one = R"({"sentences": ["abc"], "beam": 2})";
    for (int i = 0; i < rounds; ++i) {
      for (httplib::Client* c : {&a, &b}) {
        const auto res = c->Post("/translate", one, "application/json");
        EXPECT_TRUE(res && res->status == 200);
      }
    }
    return json::parse(r.client().Get("/health")->body);
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

// A plain TCP connection to the server, for what httplib's client will not send: a body
// shorter than its Content-Length, a broken request line, many requests on one connection.
class RawConnection {
 public:
  explicit RawConnection(int port) : fd_(::socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<std::uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  }
  ~RawConnection() { ::close(fd_); }
  bool connected() const { return connected_; }
  void send(const std::string& bytes) {
    ASSERT_EQ(::write(fd_, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  }
  void close_sending() { ::shutdown(fd_, SHUT_WR); }
  // One whole answer (headers and its Content-Length of body), or what came before the
  // connection closed.
  std::string answer() {
    for (;;) {
      const auto end = buffer_.find("\r\n\r\n");
      if (end != std::string::npos) {
        const auto at = buffer_.find("Content-Length: ");
        const std::size_t length = at < end ? std::stoul(buffer_.substr(at + 16)) : 0;
        if (buffer_.size() >= end + 4 + length) {
          std::string one = buffer_.substr(0, end + 4 + length);
          buffer_.erase(0, one.size());
          return one;
        }
      }
      char chunk[4096];
      const ssize_t n = ::read(fd_, chunk, sizeof chunk);
      if (n <= 0) return std::exchange(buffer_, "");
      buffer_.append(chunk, static_cast<std::size_t>(n));
    }
  }
  // True when the server has closed the connection (read returns 0 within a second).
  bool closed_by_server() {
    timeval t{1, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof t);
    char c;
    return ::read(fd_, &c, 1) == 0;
  }

 private:
  int fd_;
  bool connected_ = false;
  std::string buffer_;
};

std::string body_of(const std::string& answer) {
  const auto at = answer.find("\r\n\r\n");
  return at == std::string::npos ? "" : answer.substr(at + 4);
}

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

// "heads": a Transformer's best output carries every head of its three attentions, each row
// a distribution, the last layer's encoder-decoder heads averaged equal to its attention; the
// rest of the answer is what it is without; other models answer exactly as without.
TEST_F(ServerTest, EveryHeadOfATransformerBehindTheHeadsOption) {
  const auto without_time = [](json j) {
    j.erase("milliseconds");
    return j;
  };
  const std::string plain = R"("sentences": ["abcd", "", "fe"], "beam": 2, "nbest": 2, )"
                            R"("attention": true, "saliency": true)";
  {
    const auto r = start({}, "transformer");
    int status = 0;
    const json with = json::parse(post(*r, "{" + plain + R"(, "heads": true})", &status));
    ASSERT_EQ(status, 200) << with;
    json stripped = without_time(with);
    for (auto& t : stripped["translations"])
      for (auto& h : t["nbest"]) h.erase("heads");
    EXPECT_EQ(stripped, without_time(json::parse(post(*r, "{" + plain + "}", &status))));
    std::size_t seen = 0;
    for (const auto& t : with["translations"]) {
      if (t["nbest"].empty()) continue;
      const auto& best = t["nbest"][0];
      EXPECT_FALSE(t["nbest"][1].contains("heads"));  // the best hypothesis only
      ASSERT_TRUE(best.contains("heads")) << best;
      const json& h = best["heads"];
      const std::size_t m = t["source"].size(), n = best["output"].size();
      EXPECT_EQ(h["count"], 2);
      EXPECT_EQ(h["rows"], n);
      ASSERT_EQ(h["cross"].size(), 3u);
      ASSERT_EQ(h["decoder"].size(), 3u);
      ASSERT_EQ(h["encoder"].size(), 2u);
      ASSERT_EQ(h["decoder_inputs"].size(), n);
      EXPECT_EQ(h["decoder_inputs"][0], "<s>");
      if (n > 1) {
        EXPECT_EQ(h["decoder_inputs"][1], best["output"][0]);
      }
      const auto check = [](const json& layers, std::size_t rows, std::size_t cols, bool causal) {
        for (const auto& layer : layers) {
          ASSERT_EQ(layer.size(), 2u);
          for (const auto& head : layer) {
            ASSERT_EQ(head.size(), rows);
            for (std::size_t i = 0; i < rows; ++i) {
              ASSERT_EQ(head[i].size(), cols);
              double sum = 0;
              for (std::size_t j = 0; j < cols; ++j) {
                if (causal && j > i) {
                  EXPECT_EQ(head[i][j].get<double>(), 0.0);
                }
                sum += head[i][j].get<double>();
              }
              EXPECT_NEAR(sum, 1.0, 1e-5);
            }
          }
        }
      };
      check(h["cross"], n, m, false);
      check(h["encoder"], m, m, false);
      check(h["decoder"], n, n, true);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < m; ++j)
          EXPECT_NEAR(best["attention"][i][j].get<double>(),
                      (h["cross"][2][0][i][j].get<double>() + h["cross"][2][1][i][j].get<double>()) / 2,
                      1e-5);
      ++seen;
    }
    EXPECT_EQ(seen, 2u);
  }
  // A recurrent model: "heads" changes nothing.
  const auto r = start({}, "bahdanau");
  int status = 0;
  const json with = json::parse(post(*r, "{" + plain + R"(, "heads": true})", &status));
  ASSERT_EQ(status, 200) << with;
  EXPECT_EQ(without_time(with), without_time(json::parse(post(*r, "{" + plain + "}", &status))));
  // Not a boolean: refused.
  post(*r, R"({"sentences": ["ab"], "heads": 1})", &status);
  EXPECT_EQ(status, 400);
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
           {R"({"sentences": ["a"], "beam": 2, "beam": 3})", 400, "duplicate key \"beam\""},
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

// A second server on a port where one listens is refused (httplib's default SO_REUSEPORT let
// both listen, and the kernel split the connections between the two models).
TEST_F(ServerTest, ABusyPortIsRefused) {
  const auto r = start({});
  LineTranslator translator = LineTranslator::load({{dir_->path("noattn"), "best"}});
  ServerOptions o;
  o.port = r->port;
  Server second(translator, "noattn", o);
  try {
    second.bind();
    FAIL() << "a second server bound port " << r->port;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot listen on 127.0.0.1:" + std::to_string(r->port)),
              std::string::npos)
        << e.what();
  }
  for (int i = 0; i < 8; ++i) {  // every connection still reaches the first model
    const auto health = r->client().Get("/health");
    ASSERT_TRUE(health);
    EXPECT_EQ(json::parse(health->body)["model"], "bahdanau");
  }
}

// curl -d sends application/x-www-form-urlencoded: such a body is read as the JSON it is, up
// to --max-body (httplib alone refused it over 8 KB with 413).
TEST_F(ServerTest, FormEncodedBodiesUpToMaxBodyAreRead) {
  const auto r = start({});
  const std::string body = R"({"sentences": ["abc"],)" + std::string(50000, ' ') + R"("beam": 2})";
  auto c = r->client();
  const auto res = c.Post("/translate", body, "application/x-www-form-urlencoded");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200) << res->body;
  EXPECT_EQ(json::parse(res->body)["translations"].size(), 1u);
  ServerOptions small;
  small.max_body_bytes = 1000;
  const auto s = start(small);
  const auto refused = s->client().Post("/translate", body, "application/x-www-form-urlencoded");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 413);
  EXPECT_NE(refused->body.find("too large: " + std::to_string(body.size()) +
                               " bytes, at most 1000 (--max-body)"),
            std::string::npos)
      << refused->body;
  const auto multipart = r->client().Post("/translate", httplib::MultipartFormDataItems{
                                                            {"sentences", "abc", "", ""}});
  ASSERT_TRUE(multipart);
  EXPECT_EQ(multipart->status, 400);
  EXPECT_NE(multipart->body.find("multipart/form-data"), std::string::npos) << multipart->body;
}

// A body shorter than its Content-Length is answered 400 saying so after the read timeout
// (2 s) when the client waits; a client that closes its side is let go at once (httplib
// writes nothing to a socket whose peer has shut down).
TEST_F(ServerTest, AShortBodyIsNamedAndAnsweredQuickly) {
  const auto r = start({});
  const std::string head =
      "POST /translate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
      "Content-Length: 100\r\n\r\n{\"sent";
  for (const bool close : {true, false}) {
    RawConnection c(r->port);
    ASSERT_TRUE(c.connected());
    const auto start_time = std::chrono::steady_clock::now();
    c.send(head);
    if (close) c.close_sending();
    const std::string answer = c.answer();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
    EXPECT_LT(seconds, close ? 1.0 : 4.0) << (close ? "closed" : "waiting");
    if (close) {
      EXPECT_EQ(answer, "");
      continue;
    }
    EXPECT_NE(answer.find("HTTP/1.1 400"), std::string::npos) << answer;
    const json j = json::parse(body_of(answer), nullptr, false);
    ASSERT_TRUE(j.is_object()) << answer;
    EXPECT_EQ(j["error"], "the request body ended after 6 bytes, before its Content-Length of "
                          "100 bytes");
  }
  // httplib's own refusals say what was wrong, never a bare "HTTP 400".
  RawConnection garbage(r->port);
  garbage.send("NOT HTTP\r\n\r\n");
  const std::string answer = garbage.answer();
  EXPECT_NE(answer.find("HTTP/1.1 400"), std::string::npos) << answer;
  EXPECT_NE(answer.find("not valid HTTP/1.1"), std::string::npos) << answer;
}

// Keep-alive: one connection carries many requests (httplib closed it every 5), each answered
// without Nagle's 40 ms wait for the delayed ACK (100 requests took 4 s).
TEST_F(ServerTest, OneConnectionCarriesManyQuickRequests) {
  const auto r = start({});
  RawConnection c(r->port);
  ASSERT_TRUE(c.connected());
  const auto start_time = std::chrono::steady_clock::now();
  for (int i = 0; i < 100; ++i) {
    c.send("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::string answer = c.answer();
    ASSERT_NE(answer.find("HTTP/1.1 200"), std::string::npos) << i << ": " << answer;
    ASSERT_EQ(answer.find("Connection: close"), std::string::npos) << i << ": " << answer;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
  EXPECT_LT(seconds, 2.0);
  c.send("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  EXPECT_NE(c.answer().find("HTTP/1.1 200"), std::string::npos);
  EXPECT_TRUE(c.closed_by_server());
}

TEST_F(ServerTest, InfoDescribesTheModel) {
  ServerOptions o;
  o.model_dirs = {dir_->path("bahdanau")};
  o.limits.max_sentences = 7;
  const auto r = start(o);
  auto c = r->client();
  const auto res = c.Get("/info");
  ASSERT_TRUE(res);
  ASSERT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
  const json info = json::parse(res->body);
  EXPECT_EQ(info["model"], "bahdanau");
  EXPECT_EQ(info["kind"], "bahdanau");
  EXPECT_EQ(info["attention"], true);
  EXPECT_EQ(info["limits"]["max_sentences"], 7);
  EXPECT_EQ(info["limits"]["max_input_len"], 1000);
  ASSERT_EQ(info["members"].size(), 1u);
  const json& m = info["members"][0];
  EXPECT_EQ(m["dir"], dir_->path("bahdanau"));
  EXPECT_NE(m["weights"].get<std::string>().find("best.safetensors"), std::string::npos);
  EXPECT_EQ(m["kind"], "bahdanau");
  EXPECT_EQ(m["attention"], "soft");
  EXPECT_EQ(m["sizes"]["emb_dim"], 8);
  EXPECT_EQ(m["sizes"]["enc_hidden"], 12);
  EXPECT_EQ(m["sizes"]["dec_hidden"], 12);
  EXPECT_EQ(m["parameters"], r->translator->model(0).model->num_parameters());
  EXPECT_EQ(m["vocabularies"]["source"]["size"], r->translator->model(0).src_vocab.size());
  EXPECT_EQ(m["vocabularies"]["target"]["size"], r->translator->model(0).tgt_vocab.size());
  EXPECT_EQ(m["vocabularies"]["source"]["tokenizer"], "char");
  const json& t = m["training"];
  EXPECT_EQ(t["steps"], 20);
  EXPECT_EQ(t["metric"], "loss");
  EXPECT_TRUE(t["best_score"].is_null()) << t;  // no dev set: no validation score
  EXPECT_TRUE(t["best_step"].is_null()) << t;
  EXPECT_EQ(t["stop_reason"], "reached max_steps 20");
  EXPECT_EQ(m["step"], 20);  // the weights' own step
  EXPECT_EQ(c.Post("/info", "", "text/plain")->status, 405);

  const auto noattn = start({}, "noattn");  // no directory given: no training record
  const json n = json::parse(noattn->client().Get("/info")->body);
  EXPECT_EQ(n["attention"], false);
  EXPECT_EQ(n["members"][0]["attention"], "none");
  EXPECT_TRUE(n["members"][0]["training"].is_null());
}

// A text model's server says its kind (the live page chooses its form by it) and answers the
// memory networks' POST /answer with a 404 that names the endpoint it has.
TEST_F(ServerTest, TheKindIsInHealthAndAnswerIsForMemoryNetworks) {
  const auto r = start({});
  auto c = r->client();
  EXPECT_EQ(json::parse(c.Get("/health")->body)["kind"], "bahdanau");
  const auto res = c.Post("/answer", R"({"story": "a.", "question": "b?"})", "application/json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
  EXPECT_EQ(json::parse(res->body)["error"],
            "POST /answer answers questions with a memory network (model.kind memn2n); "
            "bahdanau translates: POST /translate");
  EXPECT_EQ(c.Get("/answer")->status, 405);
  EXPECT_EQ(c.Get("/answer")->get_header_value("Allow"), "POST");
}

TEST_F(ServerTest, CorsHeadersOnlyWhenAsked) {
  const auto plain = start({});
  auto p = plain->client();
  EXPECT_FALSE(p.Get("/health")->has_header("Access-Control-Allow-Origin"));
  const auto preflight = p.Options("/translate");
  ASSERT_TRUE(preflight);
  EXPECT_EQ(preflight->status, 405);
  EXPECT_NE(preflight->body.find("--cors"), std::string::npos) << preflight->body;

  ServerOptions o;
  o.cors_origin = "https://example.org:8000";
  const auto r = start(o);
  auto c = r->client();
  for (const auto& res : {c.Get("/health"), c.Get("/info"), c.Get("/nope"),
                          c.Post("/translate", R"({"sentences": ["ab"]})", "application/json"),
                          c.Post("/translate", "{", "application/json")}) {
    ASSERT_TRUE(res);
    EXPECT_EQ(res->get_header_value("Access-Control-Allow-Origin"), "https://example.org:8000")
        << res->status;
  }
  const auto ok = c.Options("/translate");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 204);
  EXPECT_EQ(ok->get_header_value("Access-Control-Allow-Origin"), "https://example.org:8000");
  EXPECT_NE(ok->get_header_value("Access-Control-Allow-Methods").find("POST"), std::string::npos);
  EXPECT_EQ(ok->get_header_value("Access-Control-Allow-Headers"), "Content-Type");

  EXPECT_EQ(cors_origin_problem("*"), "");
  EXPECT_EQ(cors_origin_problem("http://localhost:3000"), "");
  for (const char* bad : {"", "example.org", "https://example.org/", "https://a.org/page",
                          "https://a.org\r\nSet-Cookie: x=1", "https:// a.org", "://a.org"})
    EXPECT_NE(cors_origin_problem(bad), "") << bad;
  ServerOptions wrong;
  wrong.cors_origin = "example.org";
  EXPECT_THROW({ Server s(*r->translator, "x", wrong); }, Error);
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

// Equal JSON, numbers within 1e-5 relative: a request decoded in a batch beside others may
// round its scores and saliency differently in the last bits (the products' row counts
// differ), never more.
void expect_same_answer(const json& got, const json& want, const std::string& at = "") {
  ASSERT_EQ(got.type(), want.type()) << at;
  if (got.is_number_float() || want.is_number_float()) {
    const double g = got.get<double>(), w = want.get<double>();
    EXPECT_NEAR(g, w, 1e-5 * std::max(1.0, std::abs(w))) << at;
  } else if (got.is_object()) {
    ASSERT_EQ(got.size(), want.size()) << at;
    for (const auto& [key, value] : want.items()) {
      ASSERT_TRUE(got.contains(key)) << at << "." << key;
      expect_same_answer(got[key], value, at + "." + key);
    }
  } else if (got.is_array()) {
    ASSERT_EQ(got.size(), want.size()) << at;
    for (std::size_t i = 0; i < got.size(); ++i)
      expect_same_answer(got[i], want[i], at + "[" + std::to_string(i) + "]");
  } else {
    EXPECT_EQ(got, want) << at;
  }
}

// Several workers decode side by side on one shared model (the default: one per hardware
// thread): 8 clients at once, 32 requests with and without attention and saliency, get the
// answers one worker gives them one by one.
TEST_F(ServerTest, WorkersSideBySideAnswerAsOneWorkerDoes) {
  const std::vector<std::string> bodies = {
      R"({"sentences": ["abc", "fedcba"], "beam": 3})",
      R"({"sentences": ["aaf"], "beam": 1, "attention": true})",
      R"({"sentences": ["bdf", "ce"], "beam": 2, "nbest": 2, "alignment": "hard"})",
      R"({"sentences": ["eeddcc"], "beam": 2, "saliency": true})"};
  // `clients` keep-alive clients at once, each sending `each` requests in turn; the answers
  // in request order (client c's k-th request is number c + k * clients).
  const auto answers = [&](const Running& r, int clients, int each) {
    std::vector<std::future<std::vector<std::string>>> sent;
    for (int c = 0; c < clients; ++c)
      sent.push_back(std::async(std::launch::async, [&r, &bodies, c, clients, each] {
        auto client = r.client();
        client.set_keep_alive(true);
        std::vector<std::string> mine;
        for (int k = 0; k < each; ++k) {
          const std::size_t i = static_cast<std::size_t>(c + k * clients);
          const auto res = client.Post("/translate", bodies[i % bodies.size()], "application/json");
          EXPECT_TRUE(res && res->status == 200) << "request " << i << ": "
                                                  << (res ? res->body : httplib::to_string(res.error()));
          json body = res ? json::parse(res->body) : json::object();
          body.erase("milliseconds");
          mine.push_back(body.dump());
        }
        return mine;
      }));
    std::vector<std::string> out(static_cast<std::size_t>(clients * each));
    for (int c = 0; c < clients; ++c) {
      const std::vector<std::string> mine = sent[static_cast<std::size_t>(c)].get();
      for (int k = 0; k < each; ++k) out[static_cast<std::size_t>(c + k * clients)] = mine[static_cast<std::size_t>(k)];
    }
    return out;
  };
  ServerOptions one;
  one.service.workers = 1;
  const auto alone = answers(*start(one), 1, static_cast<int>(bodies.size()));
  ServerOptions four;
  four.service.workers = 4;
  const auto r = start(four);
  const auto together = answers(*r, 8, 4);
  for (std::size_t i = 0; i < together.size(); ++i) {
    SCOPED_TRACE("request " + std::to_string(i));
    expect_same_answer(json::parse(together[i]), json::parse(alone[i % bodies.size()]));
  }
}

// A burst of new connections, 32 clients connecting at once (more than cpp-httplib's backlog
// of 5 and than the connection threads): every one is answered.
TEST_F(ServerTest, ABurstOfNewConnectionsIsAnswered) {
  ServerOptions o;
  o.service.workers = 4;
  o.connection_threads = 16;
  o.service.queue = 64;
  const auto r = start(o);
  std::vector<std::future<int>> sent;
  for (int i = 0; i < 32; ++i)
    sent.push_back(std::async(std::launch::async, [&r, i] {
      int status = 0;
      post(*r, i % 4 == 3 ? R"({"sentences": ["eeddcc"], "beam": 2, "saliency": true})"
                          : R"({"sentences": ["abc", "fedcba"], "beam": 3})", &status);
      return status;
    }));
  for (std::size_t i = 0; i < sent.size(); ++i) EXPECT_EQ(sent[i].get(), 200) << "client " << i;
}

// The batching window: a lone client never waits, however long the window, nor do requests
// on connections used once; once two keep-alive clients are active, the first request of a
// pair waits for the other's and both are decoded in one batch.
TEST_F(ServerTest, TheBatchingWindowWaitsOnlyForOtherActiveClients) {
  const auto r = start_window(1, std::chrono::seconds(1));
  const std::string one = R"({"sentences": ["abc"], "beam": 2})";
  const auto health = [&] { return json::parse(r->client().Get("/health")->body); };
  const auto ok = [&](httplib::Client& c) {
    const auto res = c.Post("/translate", one, "application/json");
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200);
  };
  for (int i = 0; i < 3; ++i) {  // a new connection each (as curl in a loop)
    auto once = r->client();
    ok(once);
  }
  auto a = r->client(), b = r->client();  // two keep-alive connections: two clients
  a.set_keep_alive(true);
  b.set_keep_alive(true);
  for (int i = 0; i < 3; ++i) ok(a);
  EXPECT_EQ(health()["batch_waits"], 0) << "a lone client waited";
  EXPECT_EQ(health()["batches"], 6);
  // b's second request makes two active clients: it waits for a's, which does not come (the
  // window ends); from then on the two meet.
  ok(b);
  ok(b);
  EXPECT_EQ(health()["batch_waits"], 1);
  const int before = health()["batches"].get<int>();
  auto from_a = std::async(std::launch::async, [&] { return a.Post("/translate", one, "application/json"); });
  auto from_b = std::async(std::launch::async, [&] { return b.Post("/translate", one, "application/json"); });
  const auto ra = from_a.get(), rb = from_b.get();
  ASSERT_TRUE(ra && rb);
  EXPECT_EQ(ra->status, 200);
  EXPECT_EQ(rb->status, 200);
  EXPECT_EQ(json::parse(ra->body)["translations"], json::parse(rb->body)["translations"]);
  const json h = health();
  EXPECT_EQ(h["batches"].get<int>(), before + 1) << "the two requests were not batched: " << h;
  EXPECT_LE(h["batch_waits"].get<int>(), 2) << h;  // 1 when both were queued before the worker looked
}

// With two workers, one never waits while the other is idle: the idle one would take the
// other client's request at once (with one worker each request after the first two would
// wait the whole 5 s).
TEST_F(ServerTest, TheBatchingWindowNeverWaitsBesideAnIdleWorker) {
  const auto r = start_window(2, std::chrono::seconds(5));
  const auto begin = std::chrono::steady_clock::now();
  const json h = take_turns(*r, 2);
  EXPECT_LT(std::chrono::steady_clock::now() - begin, std::chrono::seconds(4));
  EXPECT_EQ(h["batch_waits"], 0) << h;
}

// Without a window (--batch-wait 0) nothing waits: the same two clients are answered as before.
TEST_F(ServerTest, ABatchingWindowOfZeroNeverWaits) {
  const auto r = start_window(1, std::chrono::microseconds(0));
  const json h = take_turns(*r, 3);
  EXPECT_EQ(h["batch_waits"], 0) << h;
  EXPECT_EQ(h["batches"], 6) << h;
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
