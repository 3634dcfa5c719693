#include "heed/serve/server.h"

#include <httplib.h>

#include <chrono>
#include <exception>
#include <nlohmann/json.hpp>

#include "heed/serve/live_page.h"
#include "heed/serve/response.h"

namespace heed::serve {
namespace {

constexpr const char* kJson = "application/json";

void send_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(error_body(message), kJson);
}

}  // namespace

Server::Server(const LineTranslator& translator, std::string model, const ServerOptions& options)
    : translator_(translator),
      model_(std::move(model)),
      options_(options),
      http_(std::make_unique<httplib::Server>()) {
  const std::size_t threads = options_.connection_threads;
  HEED_CHECK(threads >= 1, "serve: at least one connection thread is needed");
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  http_->set_payload_max_length(options_.max_body_bytes);
  routes();
}

Server::~Server() {
  stop();
  if (service_) service_->stop();
}

int Server::bind() {
  int port = options_.port;
  if (port == 0) {
    port = http_->bind_to_any_port(options_.host);
    HEED_CHECK(port > 0, "serve: cannot bind to any port on ", options_.host);
  } else {
    HEED_CHECK(http_->bind_to_port(options_.host, port), "serve: cannot listen on ",
               options_.host, ":", port, " (in use, or not an address of this machine)");
  }
  return port;
}

void Server::run() {
  service_ = std::make_unique<TranslationService>(translator_, options_.service);
  http_->listen_after_bind();  // returns after stop(), once the accepted requests are answered
  service_->stop();
}

void Server::stop() {
  if (http_) http_->stop();
}

void Server::routes() {
  http_->Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(kLivePage), "text/html; charset=utf-8");
  });
  http_->Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    const ServiceStats s = service_ ? service_->stats() : ServiceStats{};
    const nlohmann::json j = {{"status", "ok"},           {"model", model_},
                              {"attention", translator_.has_attention()},
                              {"queue", s.waiting},       {"decoding", s.decoding},
                              {"served", served_.load()},
                              {"refused", s.refused},     {"batches", s.calls},
                              {"sentences", s.sentences}};
    res.set_content(j.dump(), kJson);
  });
  http_->Post("/translate", [this](const httplib::Request& req, httplib::Response& res) {
    const auto start = std::chrono::steady_clock::now();
    try {
      const TranslateRequest r = parse_translate_request(req.body, options_.limits);
      if (r.needs_attention() && !translator_.has_attention())
        throw ApiError(400, "attention and alignment need a model with attention (" + model_ +
                                " has none)");
      if (r.saliency && translator_.size() > 1)
        throw ApiError(400, "saliency needs a single model, not an ensemble");
      const ServiceResult result = service_->submit(r).get();
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      res.set_content(translate_response(result, r, translator_, model_, ms), kJson);
      ++served_;
    } catch (const ApiError& e) {
      send_error(res, e.status(), e.what());
    } catch (const std::exception& e) {
      send_error(res, 500, std::string("translation failed: ") + e.what());
    }
  });
  for (const char* path : {"/translate", "/health", "/"}) {
    const std::string allowed = std::string(path) == "/translate" ? "POST" : "GET";
    auto wrong_method = [allowed](const httplib::Request& req, httplib::Response& res) {
      res.set_header("Allow", allowed);
      send_error(res, 405, req.method + " " + req.path + " is not served; use " + allowed);
    };
    if (allowed == "POST") {
      http_->Get(path, wrong_method);
    } else {
      http_->Post(path, wrong_method);
    }
    http_->Put(path, wrong_method);
    http_->Delete(path, wrong_method);
  }
  // Errors httplib answers itself (404, 413, 400 for a malformed request line) get a JSON
  // body too.
  http_->set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string message;
    switch (res.status) {
      case 404: message = "no such path: " + req.path + " (try GET /, GET /health, POST /translate)"; break;
      case 413: message = "the request body is too large"; break;
      default: message = std::string("HTTP ") + std::to_string(res.status); break;
    }
    res.set_content(error_body(message), kJson);
  });
}

}  // namespace heed::serve
