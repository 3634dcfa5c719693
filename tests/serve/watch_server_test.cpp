// `heed serve --watch` in process: a WatchServer on a free loopback port over model
// directories whose histories grow between requests, as a running training's do.
#include "heed/serve/watch_server.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "cli/cli_test_util.h"
#include "heed/base/error.h"

namespace heed::serve {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string record(int step, double dev_loss) {
  return "{\"best\":true,\"dev_loss\":" + std::to_string(dev_loss) +
         ",\"epoch\":1,\"lr\":0.001,\"perplexity\":2,\"seconds\":" + std::to_string(step / 10) +
         ",\"step\":" + std::to_string(step) + ",\"train_loss\":2.5}\n";
}

// Replaces the history whole, as the trainer does (write, then rename).
void write_history(const std::string& dir, const std::string& text) {
  std::ofstream(dir + "/history.jsonl.tmp") << text;
  fs::rename(dir + "/history.jsonl.tmp", dir + "/history.jsonl");
}

TEST(WatchServer, CurvesGrowWithTheHistoryAndAWaitingRunIsListed) {
  testing::ScratchDir d("heed_watch");
  fs::create_directories(d.path("a"));
  fs::create_directories(d.path("b"));  // not validated yet
  write_history(d.path("a"), record(100, 3.0) + record(200, 2.5));
  WatchServer server({d.path("a"), d.path("b")}, "127.0.0.1", 0);
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
  httplib::Client client("127.0.0.1", port);

  auto history = client.Get("/history");
  ASSERT_TRUE(history);
  ASSERT_EQ(history->status, 200) << history->body;
  json j = json::parse(history->body);
  ASSERT_EQ(j["runs"].size(), 1u);
  EXPECT_EQ(j["runs"][0]["points"].size(), 2u);
  EXPECT_EQ(j["waiting"], json::array({d.path("b")}));
  EXPECT_TRUE(j["runs"][0]["points"][0]["metric"].is_null());

  const auto page = client.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_NE(page->body.find("fetch(\"/curves\""), std::string::npos);
  EXPECT_NE(page->body.find("id=\"loss_by_step\""), std::string::npos);
  EXPECT_NE(page->body.find("no validation yet"), std::string::npos);

  // The training validates twice more, and the second run starts validating.
  write_history(d.path("a"), record(100, 3.0) + record(200, 2.5) + record(300, 2.2) + record(400, 2.1));
  write_history(d.path("b"), record(100, 3.5));
  j = json::parse(client.Get("/history")->body);
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["points"].size(), 4u);
  EXPECT_EQ(j["runs"][1]["points"].size(), 1u);
  const auto curves = client.Get("/curves");
  ASSERT_TRUE(curves);
  EXPECT_EQ(curves->status, 200);
  EXPECT_NE(curves->body.find("<svg"), std::string::npos);
  EXPECT_NE(curves->body.find(d.path("b") + ": dev loss"), std::string::npos);

  // A truncated line: an error naming the file and line, not a crash.
  write_history(d.path("a"), record(100, 3.0) + "{\"best\":true,\"dev_lo");
  const auto bad = client.Get("/curves");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 500);
  EXPECT_NE(bad->body.find(d.path("a") + "/history.jsonl:2: not a complete JSON object"),
            std::string::npos)
      << bad->body;
}

TEST(WatchServer, APathThatIsNotADirectoryStopsItAtStart) {
  EXPECT_THROW(WatchServer({"/nonexistent/heed_watch_dir"}, "127.0.0.1", 0), Error);
}

}  // namespace
}  // namespace heed::serve
