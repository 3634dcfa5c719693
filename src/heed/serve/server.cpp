#include "heed/serve/server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <chrono>
#include <exception>
#include <nlohmann/json.hpp>

#include "heed/base/enum_names.h"
#include "heed/data/babi_encoding.h"
#include "heed/serve/answer_request.h"
#include "heed/serve/answer_response.h"
#include "heed/serve/live_page.h"
#include "heed/serve/model_info.h"
#include "heed/serve/response.h"
#include "heed/serve/transcribe_response.h"
#include "heed/store/model_dir.h"
#include "heed/translate/question_answering.h"

namespace heed::serve {
namespace {

constexpr const char* kJson = "application/json";

// Requests one connection may carry before the server closes it. httplib's default, 5,
// made clients reconnect every fifth request; a connection holds one of the --connections
// threads only while it is open, and an idle one is closed after 5 s anyway.
constexpr std::size_t kKeepAliveRequests = 1000;
// Seconds a request's next bytes may take to arrive (a body shorter than its Content-Length
// is answered 400 after this long; one whose client shut its side down is closed at once).
constexpr time_t kReadTimeoutSeconds = 2;

void send_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(error_body(message), kJson);
}

// The listening socket without SO_REUSEPORT (httplib's default sets it): with it a second
// server could bind a port one already listens on and the kernel would split the connections
// between the two. SO_REUSEADDR still lets a restarted server bind while old connections of
// the port linger in TIME_WAIT.
void exclusive_port(int sock) {
  const int yes = 1;
  ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
}

// Why the body of req could not be read, as the answer says it (status as httplib set it: 413
// for a body over the limit, 415 for an unknown Content-Encoding, 400 for one that ended early
// or broke its chunked framing).
std::string body_problem(const httplib::Request& req, int status, std::size_t received,
                         std::size_t max_body) {
  const std::string length = req.get_header_value("Content-Length");
  if (status == 415)
    return "the body's Content-Encoding \"" + req.get_header_value("Content-Encoding") +
           "\" is not supported; send it uncompressed";
  if (status == 413)
    return "the request body is too large: " + (length.empty() ? "over" : length + " bytes,") +
           " at most " + std::to_string(max_body) + " (--max-body)";
  if (!length.empty())
    return "the request body ended after " + std::to_string(received) +
           " bytes, before its Content-Length of " + length + " bytes";
  return "the request body could not be read after " + std::to_string(received) +
         " bytes (broken chunked encoding, or the client stopped sending)";
}

// The body of a POST, read here rather than by httplib: httplib refuses a form-encoded body
// (curl's default -d type) over 8 KB whatever the limit, and says only "400" of one that ends
// early. ApiError for a multipart body and for one that could not be read.
std::string read_body(const httplib::Request& req, httplib::Response& res,
                      const httplib::ContentReader& read, std::size_t max_body) {
  std::string body;
  if (req.is_multipart_form_data()) {
    read([](const httplib::MultipartFormData&) { return true; },
         [](const char*, std::size_t) { return true; });
    throw ApiError(400, "the body is multipart/form-data; send the JSON object itself "
                        "(curl -d or --data-binary, not -F)");
  }
  if (!read([&](const char* data, std::size_t n) {
        body.append(data, n);
        return true;
      }))
    throw ApiError(res.status == 413 || res.status == 415 ? res.status : 400,
                   body_problem(req, res.status, body.size(), max_body));
  return body;
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

// The reason phrase of a status httplib may answer by itself.
std::string status_text(int status) {
  switch (status) {
    case 400: return "the request is not valid HTTP/1.1 (its request line or headers could not be read)";
    case 413: return "the request body is too large";
    case 414: return "the request line is too long";
    case 416: return "the requested range cannot be satisfied";
    case 500: return "internal server error";
    default: return "HTTP status " + std::to_string(status);
  }
}

}  // namespace

std::string cors_origin_problem(const std::string& origin) {
  if (origin == "*") return "";
  const auto scheme = origin.find("://");
  if (scheme == std::string::npos || scheme == 0)
    return "expected * or an origin such as https://example.org:8000 (scheme://host[:port])";
  for (const char c : origin)
    if (c <= ' ' || c == 0x7f || static_cast<unsigned char>(c) >= 0x80)
      return "an origin has no spaces, control or non-ASCII characters";
  const std::string rest = origin.substr(scheme + 3);
  if (rest.empty() || rest.find('/') != std::string::npos)
    return "an origin is scheme://host[:port], with no path (not even a final /)";
  return "";
}

Server::Server(const LineTranslator& translator, std::string model, const ServerOptions& options)
    : Server(&translator, nullptr, nullptr, std::move(model), options) {}

Server::Server(const LoadedMemoryModel& memory, std::string model, const ServerOptions& options)
    : Server(nullptr, &memory, nullptr, std::move(model), options) {}

Server::Server(const LoadedModel& speech, std::string model, const ServerOptions& options)
    : Server(nullptr, nullptr, &speech, std::move(model), options) {}

Server::Server(const LineTranslator* translator, const LoadedMemoryModel* memory,
               const LoadedModel* speech, std::string model, const ServerOptions& options)
    : translator_(translator),
      memory_(memory),
      speech_(speech),
      model_(std::move(model)),
      kind_(enum_name(memory   ? memory->config.model.kind
                      : speech ? speech->config.model.kind
                               : translator->model(0).config.model.kind)),
      options_(options),
      http_(std::make_unique<httplib::Server>()) {
  const std::size_t threads = options_.connection_threads;
  HEED_CHECK(threads >= 1, "serve: at least one connection thread is needed");
  HEED_CHECK(cors_origin_problem(options_.cors_origin).empty() || options_.cors_origin.empty(),
             "serve: --cors ", options_.cors_origin, ": ", cors_origin_problem(options_.cors_origin));
  http_->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  options_.service.clients_at_once = threads;  // no more requests than threads arrive at once
  http_->set_payload_max_length(options_.max_body_bytes);
  http_->set_socket_options([this](int sock) {
    exclusive_port(sock);
    listening_socket_ = sock;
  });
  // Each answer is two writes (headers, body): with Nagle's algorithm the second waits for
  // the client's delayed ACK, about 40 ms per keep-alive request. Accepted sockets inherit it.
  http_->set_tcp_nodelay(true);
  http_->set_keep_alive_max_count(kKeepAliveRequests);
  http_->set_read_timeout(kReadTimeoutSeconds, 0);
  const std::string dir = options_.model_dirs.empty() ? "" : options_.model_dirs[0];
  info_ = memory_   ? memory_model_info(*memory_, model_, dir, options_.limits)
          : speech_ ? speech_model_info(*speech_, model_, dir, options_.limits,
                                        options_.max_body_bytes)
                    : model_info(*translator_, model_, options_.model_dirs, options_.limits,
                                 options_.service.max_input_tokens);
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
  // cpp-httplib 0.11 listens with a backlog of 5: a burst of new connections (32 clients
  // connecting at once) overflowed it and some of them were dropped unanswered. Listening
  // again on the bound socket raises the backlog to the system's limit.
  if (listening_socket_ >= 0) ::listen(listening_socket_, SOMAXCONN);
  return port;
}

void Server::run() {
  if (translator_) service_ = std::make_unique<TranslationService>(*translator_, options_.service);
  http_->listen_after_bind();  // returns after stop(), once the accepted requests are answered
  if (service_) service_->stop();
}

void Server::stop() {
  if (http_) http_->stop();
}

void Server::routes() {
  http_->Get("/", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(std::string(kLivePage), "text/html; charset=utf-8");
  });
  http_->Get("/health", [this](const httplib::Request&, httplib::Response& res) {
    if (memory_ || speech_) {
      const nlohmann::json j = {{"status", "ok"}, {"model", model_}, {"kind", kind_},
                                {"attention", true}, {"served", served_.load()}};
      res.set_content(j.dump(), kJson);
      return;
    }
    const ServiceStats s = service_ ? service_->stats() : ServiceStats{};
    const nlohmann::json j = {{"status", "ok"},           {"model", model_},
                              {"kind", kind_},
                              {"attention", translator_->has_attention()},
                              {"coverage", translator_->model(0).config.model.coverage},
                              {"queue", s.waiting},       {"decoding", s.decoding},
                              {"served", served_.load()},
                              {"refused", s.refused},     {"batches", s.calls},
                              {"batch_waits", s.waits},   {"sentences", s.sentences}};
    res.set_content(j.dump(), kJson);
  });
  // The endpoints of the other kinds of model are 404s that say which one this server has.
  const char* served = memory_ ? "/answer" : speech_ ? "/transcribe" : "/translate";
  const std::string what = memory_   ? " is a memory network (model.kind memn2n): POST /answer"
                           : speech_ ? " transcribes speech (model.kind las): POST /transcribe"
                                     : " translates: POST /translate";
  const std::pair<const char*, const char*> endpoints[] = {
      {"/translate", "POST /translate translates with a text model; "},
      {"/answer", "POST /answer answers questions with a memory network (model.kind memn2n); "},
      {"/transcribe", "POST /transcribe transcribes speech with a speech model (model.kind las); "}};
  for (const auto& [path, does] : endpoints) {
    if (std::string(path) == served) continue;
    const std::string not_here = does + model_ + what;
    http_->Post(path, [not_here](const httplib::Request&, httplib::Response& res,
                                 const httplib::ContentReader& read) {
      read([](const char*, std::size_t) { return true; });
      send_error(res, 404, not_here);
    });
  }
  if (memory_) {
    answer_route();
  } else if (speech_) {
    transcribe_route();
  } else {
    translate_route();
  }
  for (const char* path : {"/translate", "/answer", "/transcribe", "/health", "/"}) {
    const std::string p = path;
    const std::string allowed =
        p == "/translate" || p == "/answer" || p == "/transcribe" ? "POST" : "GET";
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
  info_and_cors_routes();
  // Errors httplib answers itself (404, 413, 400 for a malformed request line) get a JSON
  // body too.
  http_->set_error_handler([served = std::string(served)](const httplib::Request& req,
                                                          httplib::Response& res) {
    if (!res.body.empty()) return;
    std::string message;
    switch (res.status) {
      case 404:
        message = "no such path: " + req.path + " (try GET /, GET /health, GET /info, POST " +
                  served + ")";
        break;
      default: message = status_text(res.status); break;
    }
    res.set_content(error_body(message), kJson);
  });
}

void Server::translate_route() {
  http_->Post("/translate", [this](const httplib::Request& req, httplib::Response& res,
                                   const httplib::ContentReader& read) {
    const auto start = std::chrono::steady_clock::now();
    try {
      const std::string body = read_body(req, res, read, options_.max_body_bytes);
      TranslateRequest r = parse_translate_request(body, options_.limits);
      // Only a single Transformer has heads: for any other model "heads" changes nothing (and
      // costs no forced pass).
      if (translator_->size() > 1 ||
          translator_->model(0).config.model.kind != ModelKind::transformer)
        r.heads = false;
      if (r.needs_attention() && !translator_->has_attention())
        throw ApiError(400, "attention and alignment need a model with attention (" + model_ +
                                " has none)");
      if (r.saliency && translator_->size() > 1)
        throw ApiError(400, "saliency needs a single model, not an ensemble");
      const ServiceResult result =
          service_->submit(r, req.remote_addr + ":" + std::to_string(req.remote_port)).get();
      res.set_content(
          translate_response(result, r, *translator_, model_, milliseconds_since(start)), kJson);
      ++served_;
    } catch (const ApiError& e) {
      send_error(res, e.status(), e.what());
    } catch (const std::exception& e) {
      send_error(res, 500, std::string("translation failed: ") + e.what());
    }
  });
}

void Server::answer_route() {
  http_->Post("/answer", [this](const httplib::Request& req, httplib::Response& res,
                                const httplib::ContentReader& read) {
    const auto start = std::chrono::steady_clock::now();
    try {
      const std::string body = read_body(req, res, read, options_.max_body_bytes);
      const AnswerRequest r = parse_answer_request(body, options_.limits);
      const std::vector<AnsweredQuestion> answers =
          answer_questions(*memory_->model, encode_babi({r.question}, memory_->vocab));
      res.set_content(answer_response(answers.at(0), r, memory_->vocab, model_,
                                      milliseconds_since(start)),
                      kJson);
      ++served_;
    } catch (const ApiError& e) {
      send_error(res, e.status(), e.what());
    } catch (const std::exception& e) {
      send_error(res, 500, std::string("answering failed: ") + e.what());
    }
  });
}

void Server::transcribe_route() {
  http_->Post("/transcribe", [this](const httplib::Request& req, httplib::Response& res,
                                    const httplib::ContentReader& read) {
    const auto start = std::chrono::steady_clock::now();
    try {
      if (req.is_multipart_form_data()) {
        read([](const httplib::MultipartFormData&) { return true; },
             [](const char*, std::size_t) { return true; });
        throw ApiError(415, "the body is multipart/form-data; send the WAV file itself (curl "
                            "--data-binary @speech.wav -H 'Content-Type: audio/wav', not -F)");
      }
      std::string body;
      if (!read([&](const char* data, std::size_t n) {
            body.append(data, n);
            return true;
          }))
        throw ApiError(res.status == 413 || res.status == 415 ? res.status : 400,
                       body_problem(req, res.status, body.size(), options_.max_body_bytes));
      const TranscribeRequest r =
          parse_transcribe_request(std::move(body), req.get_header_value("Content-Type"),
                                   req.get_param_value("beam"), options_.limits);
      res.set_content(transcribe_response(*speech_, r, model_, decoding_, start), kJson);
      ++served_;
    } catch (const ApiError& e) {
      send_error(res, e.status(), e.what());
    } catch (const std::exception& e) {
      send_error(res, 500, std::string("transcribing failed: ") + e.what());
    }
  });
}

void Server::info_and_cors_routes() {
  http_->Get("/info", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(info_, kJson);
  });
  auto get_only = [](const httplib::Request& req, httplib::Response& res) {
    res.set_header("Allow", "GET");
    send_error(res, 405, req.method + " " + req.path + " is not served; use GET");
  };
  http_->Post("/info", get_only);
  http_->Put("/info", get_only);
  http_->Delete("/info", get_only);
  if (options_.cors_origin.empty()) {
    http_->Options(".*", [](const httplib::Request& req, httplib::Response& res) {
      send_error(res, 405, "OPTIONS " + req.path + " is answered only with --cors");
    });
    return;
  }
  // Every answer, errors included, names the origin allowed to read it; a browser's preflight
  // (OPTIONS) learns that a JSON POST may follow.
  http_->set_default_headers({{"Access-Control-Allow-Origin", options_.cors_origin}});
  http_->Options(".*", [](const httplib::Request&, httplib::Response& res) {
    res.status = 204;
    res.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    res.set_header("Access-Control-Allow-Headers", "Content-Type");
    res.set_header("Access-Control-Max-Age", "600");
  });
}

}  // namespace heed::serve
