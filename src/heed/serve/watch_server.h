#pragma once
// WatchServer: `heed serve --watch DIR...` (docs/cli/serve.md): the training curves of running
// (or finished) trainings, read afresh from each DIR/history.jsonl at every request, so that a
// page left open shows them grow. No model is loaded.
//   GET /         the page (viz/history_charts.h), which fetches /curves every 3 s
//   GET /curves   the page's body: the runs' table and the charts as inline SVG
//   GET /history  the histories as JSON: {"runs": [{"dir", "metric", "points": [...]}]}
// A directory without a history yet is listed as waiting; a history that cannot be read (a
// truncated line) is a 500 naming the file and line, and the page keeps its last curves.
#include <memory>
#include <string>
#include <vector>

namespace httplib {
class Server;
}

namespace heed::serve {

class WatchServer {
 public:
  // heed::Error when a dir is not a directory.
  WatchServer(std::vector<std::string> dirs, std::string host, int port);
  ~WatchServer();
  WatchServer(const WatchServer&) = delete;
  WatchServer& operator=(const WatchServer&) = delete;

  int bind();  // the port (port 0: any free one)
  void run();  // until stop()
  void stop(); // safe from any thread, more than once

 private:
  std::vector<std::string> dirs_;
  std::string host_;
  int port_;
  std::unique_ptr<httplib::Server> http_;
};

}  // namespace heed::serve
