#pragma once
// Debian's headless Chromium driven through chromium-driver (WebDriver over HTTP, spoken with
// cpp-httplib's client), kept off the network: for the tests of heed's pages (the live page
// of heed serve, the report of heed show). Tests skip when the two are not installed
// (tools/setup-browser.sh installs both).
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace heed::testing {

using nlohmann::json;

inline constexpr const char* kChromium = "/usr/bin/chromium";
inline constexpr const char* kDriver = "/usr/bin/chromedriver";

// A chromedriver process on a free port, and one WebDriver session in it.
class Browser {
 public:
  // extra_args: more Chromium flags (the fake microphone's, for one).
  explicit Browser(const std::string& profile, const std::vector<std::string>& extra_args = {}) {
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
    json args = {"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                 "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", "--user-data-dir=" + profile};
    for (const std::string& a : extra_args) args.push_back(a);
    const json caps = {
        {"capabilities",
         {{"alwaysMatch",
           {{"goog:chromeOptions",
             {{"binary", kChromium},
              {"args", args}}}}}}}};
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

}  // namespace heed::testing
