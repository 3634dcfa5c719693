// The server of a memory network end to end, in process: a small model.kind memn2n trained once
// per suite by the heed binary on the generated moves task (tests/support/babi_moves.h), a
// serve::Server on a free loopback port, and cpp-httplib's client. POST /answer gives what
// answer_questions gives for the same story, in every form a story may take; what it refuses,
// it refuses with a JSON message; /health and /info say the model is a memory network.
#include <gtest/gtest.h>
#include <httplib.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/cli_test_util.h"
#include "heed/data/babi.h"
#include "heed/data/babi_encoding.h"
#include "heed/serve/server.h"
#include "heed/store/model_dir.h"
#include "heed/translate/question_answering.h"
#include "support/babi_moves.h"

namespace heed::serve {
namespace {

using nlohmann::json;
using testing::ScratchDir;
namespace fs = std::filesystem;

class AnswerServer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("heed_serve_memn2n");
    fs::create_directories(dir_->path("babi"));
    dir_->file("babi/qa1_moves_train.txt", testing::babi_moves_text(300, 21));
    dir_->file("babi/qa1_moves_test.txt", testing::babi_moves_text(20, 22));
    const std::string config = dir_->file("c.yaml",
        "data:\n"
        "  babi: {dir: " + dir_->path("babi") + ", tasks: '1', dev_fraction: 0.1}\n"
        "model: {kind: memn2n, emb_dim: 20, hops: 2, memory_size: 8}\n"
        "training: {optimizer: adam, lr: 0.01, max_sentences: 32, max_tokens: 100000,\n"
        "           max_epochs: 20, validate_every: 100, clip_norm: 40, metric: error,\n"
        "           threads: 1, seed: 1}\n"
        "output: " + dir_->path("m") + "\n");
    const auto trained = testing::run_heed("train " + config);
    ASSERT_EQ(trained.exit_code, 0) << trained.output;
    model_ = new LoadedMemoryModel(load_memory_model_dir(dir_->path("m")));
    ServerOptions options;
    options.port = 0;
    options.model_dirs = {dir_->path("m")};
    options.limits.max_sentence_bytes = 100;
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
  void SetUp() override { ASSERT_NE(server_, nullptr) << "the memory network was not trained"; }

  static httplib::Client client() {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(30, 0);
    return c;
  }
  // POST /answer; the status and the parsed body.
  static std::pair<int, json> ask(const json& body) {
    auto res = client().Post("/answer", body.dump(), "application/json");
    if (!res) return {-1, json()};
    return {res->status, json::parse(res->body)};
  }
  // What answer_questions says of the story's statements and the question, in process.
  static AnsweredQuestion direct(const std::vector<std::string>& statements,
                                 const std::string& question) {
    BabiQuestion q;
    for (const std::string& s : statements) q.story.push_back(babi_words(s));
    q.question = babi_words(question);
    return answer_questions(*model_->model, encode_babi({q}, model_->vocab)).at(0);
  }
  static void expect_same(const json& got, const AnsweredQuestion& want) {
    EXPECT_EQ(got["answer"], model_->vocab.token(want.predicted));
    EXPECT_EQ(got["probability"].get<double>(), want.probability);
    EXPECT_EQ(got["hops"].get<std::vector<std::vector<double>>>(), want.attention);
    EXPECT_EQ(got["dropped"].get<std::size_t>(), want.first);
  }

  static ScratchDir* dir_;
  static LoadedMemoryModel* model_;
  static Server* server_;
  static std::thread* serving_;
  static int port_;
};
ScratchDir* AnswerServer::dir_ = nullptr;
LoadedMemoryModel* AnswerServer::model_ = nullptr;
Server* AnswerServer::server_ = nullptr;
std::thread* AnswerServer::serving_ = nullptr;
int AnswerServer::port_ = 0;

const std::vector<std::string> kStory = {"Mary went to the kitchen.", "John went to the garden.",
                                         "Mary moved to the office.", "Sandra journeyed to the hallway."};

TEST_F(AnswerServer, AnswersATypedStoryAsAnswerQuestionsDoes) {
  std::string story;
  for (const std::string& s : kStory) story += s + "\n";
  const auto [status, got] = ask({{"story", story}, {"question", "Where is Mary?"}});
  ASSERT_EQ(status, 200) << got;
  expect_same(got, direct(kStory, "Where is Mary?"));
  EXPECT_EQ(got["answer"], "office");  // the model learnt the task: Mary's last move
  EXPECT_GT(got["probability"].get<double>(), 0.5);
  EXPECT_EQ(got["question"], (std::vector<std::string>{"where", "is", "mary"}));
  ASSERT_EQ(got["statements"].size(), 4u);
  EXPECT_EQ(got["statements"][2], (json{{"line", 3}, {"words", {"mary", "moved", "to", "the", "office"}}}));
  ASSERT_EQ(got["hops"].size(), 2u);  // model.hops
  for (const json& hop : got["hops"]) {
    ASSERT_EQ(hop.size(), 4u);
    double sum = 0;
    for (const json& w : hop) sum += w.get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
  EXPECT_EQ(got["unknown"], json::array());
  EXPECT_FALSE(got.contains("unknown_note"));
  EXPECT_FALSE(got.contains("expected"));
  EXPECT_EQ(got["model"], "moves");
  EXPECT_GE(got["milliseconds"].get<double>(), 0.0);
}

TEST_F(AnswerServer, NumberedLinesAndTheStorysOwnQuestionGiveTheSameAnswer) {
  const AnsweredQuestion want = direct(kStory, "Where is John?");
  const auto [status, numbered] = ask(
      {{"story", "1 Mary went to the kitchen.\n\n2. John went to the garden.\n3) Mary moved to the "
                 "office.\n4 Sandra journeyed to the hallway.\n"},
       {"question", "where is john"}});
  ASSERT_EQ(status, 200) << numbered;
  expect_same(numbered, want);
  std::vector<int> lines;
  for (const json& s : numbered["statements"]) lines.push_back(s["line"]);
  EXPECT_EQ(lines, (std::vector<int>{1, 3, 4, 5}));
  std::string story;
  for (const std::string& s : kStory) story += s + "\n";
  const auto [status2, last_line] = ask({{"story", story + "Where is John?\n"}});
  ASSERT_EQ(status2, 200) << last_line;
  expect_same(last_line, want);
  EXPECT_EQ(last_line["answer"], "garden");
}

TEST_F(AnswerServer, BabiTextComesBackWithItsExpectedAnswerAndSupportingFacts) {
  const auto [status, got] =
      ask({{"story", "1 Mary went to the kitchen.\n2 John went to the garden.\n3 Where is Mary? "
                     "\tkitchen\t1\n4 Mary moved to the office.\n5 Where is Mary?\toffice\t4\n"}});
  ASSERT_EQ(status, 200) << got;
  expect_same(got, direct({"Mary went to the kitchen.", "John went to the garden.",
                           "Mary moved to the office."},
                          "Where is Mary?"));
  EXPECT_EQ(got["expected"], "office");
  EXPECT_EQ(got["correct"], got["answer"] == "office");
  std::vector<int> lines;
  std::vector<bool> supporting;
  for (const json& s : got["statements"]) {
    lines.push_back(s["line"]);
    supporting.push_back(s["supporting"]);
  }
  EXPECT_EQ(lines, (std::vector<int>{1, 2, 4}));
  EXPECT_EQ(supporting, (std::vector<bool>{false, false, true}));
}

TEST_F(AnswerServer, UnknownWordsAreReportedAndStillAnswered) {
  const std::vector<std::string> story = {"Mary went to the zorb.", "Bob went to the garden.",
                                          "Mary moved to the zorb."};
  const auto [status, got] = ask({{"story", "Mary went to the zorb.\nBob went to the garden.\n"
                                            "Mary moved to the zorb."},
                                  {"question", "Where is Mary now?"}});
  ASSERT_EQ(status, 200) << got;
  expect_same(got, direct(story, "Where is Mary now?"));
  EXPECT_EQ(got["unknown"], (std::vector<std::string>{"zorb", "bob", "now"}));
  EXPECT_EQ(got["unknown_note"],
            "3 words the model never saw (zorb, bob, now) were read as the unknown word <unk>, "
            "which no training story held: answered all the same, without their meaning");
  EXPECT_EQ(got["statements"][0]["words"],
            (std::vector<std::string>{"mary", "went", "to", "the", "zorb"}));  // as typed
}

TEST_F(AnswerServer, AStoryLongerThanTheMemoryKeepsItsLastStatements) {
  std::vector<std::string> story;
  std::string text;
  const char* places[] = {"kitchen", "garden", "office", "hallway", "bathroom"};
  for (int i = 0; i < 11; ++i) {
    story.push_back(std::string(i % 2 ? "John" : "Mary") + " went to the " + places[i % 5] + ".");
    text += story.back() + "\n";
  }
  const auto [status, got] = ask({{"story", text}, {"question", "Where is Mary?"}});
  ASSERT_EQ(status, 200) << got;
  expect_same(got, direct(story, "Where is Mary?"));
  EXPECT_EQ(got["dropped"], 3);  // model.memory_size 8
  ASSERT_EQ(got["statements"].size(), 8u);
  EXPECT_EQ(got["statements"][0]["line"], 4);
  EXPECT_EQ(got["hops"][0].size(), 8u);
}

TEST_F(AnswerServer, RefusalsAreJsonSayingWhy) {
  struct Case {
    std::string body;
    int status;
    std::string words;
  };
  const std::vector<Case> cases = {
      {"not json", 400, "not valid JSON"},
      {R"({"question": "Where is Mary?"})", 400, "\"story\" is required"},
      {R"({"story": "", "question": "Where is Mary?"})", 400, "\"story\" is empty"},
      {R"({"story": "Mary went to the kitchen."})", 400, "no question"},
      {R"({"story": "Mary went to the kitchen.", "sentences": ["a"]})", 400,
       "unknown key \"sentences\""},
      {R"({"story": "1 Mary went.\n3 Where is Mary?\tkitchen\t1"})", 400, "story:2: ID 3"},
      {"{\"story\": \"" + std::string(120, 'a') + "\", \"question\": \"Where?\"}", 413,
       "story line 1 has 120 bytes, at most 100"},
  };
  for (const Case& c : cases) {
    auto res = client().Post("/answer", c.body, "application/json");
    ASSERT_TRUE(res) << c.body;
    EXPECT_EQ(res->status, c.status) << c.body;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json");
    const json j = json::parse(res->body);
    EXPECT_NE(j["error"].get<std::string>().find(c.words), std::string::npos)
        << c.body << "\n  said: " << j["error"];
  }
  // The endpoint of text models, and the wrong methods.
  auto c = client();
  const auto translate = c.Post("/translate", R"({"sentences": ["a"]})", "application/json");
  ASSERT_TRUE(translate);
  EXPECT_EQ(translate->status, 404);
  EXPECT_EQ(json::parse(translate->body)["error"],
            "POST /translate translates with a text model; moves is a memory network "
            "(model.kind memn2n): POST /answer");
  const auto get = c.Get("/answer");
  EXPECT_EQ(get->status, 405);
  EXPECT_EQ(get->get_header_value("Allow"), "POST");
  EXPECT_NE(json::parse(c.Get("/nope")->body)["error"].get<std::string>().find("POST /answer"),
            std::string::npos);
}

TEST_F(AnswerServer, HealthAndInfoSayItIsAMemoryNetwork) {
  auto c = client();
  const json health = json::parse(c.Get("/health")->body);
  EXPECT_EQ(health["status"], "ok");
  EXPECT_EQ(health["kind"], "memn2n");
  EXPECT_EQ(health["model"], "moves");
  ask({{"story", "Mary went to the kitchen."}, {"question", "Where is Mary?"}});
  EXPECT_GE(json::parse(c.Get("/health")->body)["served"].get<int>(), 1);
  const json info = json::parse(c.Get("/info")->body);
  EXPECT_EQ(info["kind"], "memn2n");
  EXPECT_EQ(info["limits"]["max_line_bytes"], 100);
  ASSERT_EQ(info["members"].size(), 1u);
  const json& m = info["members"][0];
  EXPECT_EQ(m["dir"], dir_->path("m"));
  EXPECT_EQ(m["weights"], dir_->path("m/best.safetensors"));
  EXPECT_EQ(m["sizes"]["hops"], 2);
  EXPECT_EQ(m["sizes"]["memory_size"], 8);
  EXPECT_EQ(m["sizes"]["emb_dim"], 20);
  EXPECT_EQ(m["vocabularies"]["words"]["size"], model_->vocab.size());
  EXPECT_EQ(m["parameters"], model_->model->num_parameters());
  EXPECT_TRUE(m["training"].is_object());
  // The example fits the moves task's words: the first story (task 1's moves).
  EXPECT_EQ(info["example"]["unknown"], 0);
  EXPECT_EQ(info["example"]["question"], "Where is Mary?");
  const auto [status, got] =
      ask({{"story", info["example"]["story"]}, {"question", info["example"]["question"]}});
  EXPECT_EQ(status, 200);
  EXPECT_EQ(got["unknown"], json::array());
}

}  // namespace
}  // namespace heed::serve
