#include "heed/serve/watch_server.h"

#include <httplib.h>

#include <exception>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "heed/base/error.h"
#include "heed/serve/response.h"
#include "heed/viz/history_charts.h"

namespace heed::serve {
namespace {

struct Runs {
  std::vector<viz::TrainingHistory> read;
  std::vector<std::string> waiting;  // no history.jsonl yet
};

// Read afresh each time: heed train replaces the file whole (write, then rename), so a read
// sees one complete version.
Runs read_runs(const std::vector<std::string>& dirs) {
  Runs r;
  for (const auto& d : dirs) {
    if (!std::filesystem::exists(viz::history_path(d))) {
      r.waiting.push_back(d);
      continue;
    }
    r.read.push_back(viz::read_training_history(d));
  }
  return r;
}

}  // namespace

WatchServer::WatchServer(std::vector<std::string> dirs, std::string host, int port)
    : dirs_(std::move(dirs)), host_(std::move(host)), port_(port),
      http_(std::make_unique<httplib::Server>()) {
  HEED_CHECK(!dirs_.empty(), "serve --watch: no directory to watch");
  for (const auto& d : dirs_)
    HEED_CHECK(std::filesystem::is_directory(d), d,
               ": not a directory (--watch takes the output directory of heed train)");
  http_->Get("/", [this](const httplib::Request&, httplib::Response& res) {
    try {
      const Runs r = read_runs(dirs_);
      res.set_content(viz::history_page(r.read, true, "/curves", r.waiting),
                      "text/html; charset=utf-8");
    } catch (const std::exception& e) {
      res.status = 500;
      res.set_content(e.what(), "text/plain; charset=utf-8");
    }
  });
  http_->Get("/curves", [this](const httplib::Request&, httplib::Response& res) {
    try {
      const Runs r = read_runs(dirs_);
      res.set_content(viz::history_charts_html(r.read, r.waiting), "text/html; charset=utf-8");
    } catch (const std::exception& e) {
      res.status = 500;
      res.set_content(e.what(), "text/plain; charset=utf-8");
    }
  });
  http_->Get("/history", [this](const httplib::Request&, httplib::Response& res) {
    try {
      const Runs r = read_runs(dirs_);
      nlohmann::json runs = nlohmann::json::array();
      for (const auto& h : r.read) {
        nlohmann::json points = nlohmann::json::array();  // NaN (not recorded): null
        for (const auto& p : h.points)
          points.push_back({{"step", p.step},
                            {"seconds", p.seconds},
                            {"train_loss", p.train_loss},
                            {"dev_loss", p.dev_loss},
                            {"lr", p.lr},
                            {"metric", p.metric}});
        runs.push_back({{"dir", h.dir}, {"metric", h.metric}, {"points", points}});
      }
      res.set_content(nlohmann::json({{"runs", runs}, {"waiting", r.waiting}}).dump(),
                      "application/json");
    } catch (const std::exception& e) {
      res.status = 500;
      res.set_content(error_body(e.what()), "application/json");
    }
  });
}

WatchServer::~WatchServer() { stop(); }

int WatchServer::bind() {
  if (port_ == 0) {
    const int port = http_->bind_to_any_port(host_);
    HEED_CHECK(port > 0, "serve: cannot bind to any port on ", host_);
    return port;
  }
  HEED_CHECK(http_->bind_to_port(host_, port_), "serve: cannot listen on ", host_, ":", port_,
             " (in use, or not an address of this machine)");
  return port_;
}

void WatchServer::run() { http_->listen_after_bind(); }

void WatchServer::stop() {
  if (http_) http_->stop();
}

}  // namespace heed::serve
