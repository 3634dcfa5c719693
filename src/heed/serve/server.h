#pragma once
// Server: `heed serve` (docs/cli/serve.md) on Debian's cpp-httplib, for a text model (or an
// ensemble), a memory network (model.kind memn2n) or a speech model (model.kind las).
//   GET  /           the live page (type a sentence, see its translation, heat map, alignment;
//                    or type a story and a question, see the answer and the hops)
//   GET  /health     {"status": "ok", "model": ..., "kind": ..., "queue": waiting jobs,
//                    "served": ...}
//   GET  /info       the model: kind, sizes, vocabularies, training step, dev score
//                    (serve/model_info.h)
//   POST /translate  a text model: serve/request.h in, serve/response.h out
//   POST /answer     a memory network: serve/answer_request.h in, serve/answer_response.h out
//                    (answered on the connection's thread: one question is a few GEMVs)
//   POST /transcribe a speech model: a WAV file in (serve/transcribe_request.h), its transcript,
//                    attention and spectrogram out (serve/transcribe_response.h); decoded on
//                    the connection's thread, one request at a time
// Every error is JSON {"error": "..."}: 400 malformed, 404 unknown path, 405 wrong method,
// 413 too large, 503 overloaded or stopping, 500 a failure inside heed. Connections are
// served by a fixed pool of threads; translation runs on the TranslationService's workers.
// With cors_origin set, every answer carries Access-Control-Allow-Origin and OPTIONS answers
// browsers' preflight requests.
#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "heed/serve/request.h"
#include "heed/serve/translation_service.h"
#include "heed/translate/line_translator.h"

namespace httplib {
class Server;
}

namespace heed {
struct LoadedMemoryModel;  // store/model_dir.h
struct LoadedModel;
}

namespace heed::serve {

struct ServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;                          // 0: any free port (bind() says which)
  std::size_t max_body_bytes = 1 << 20;     // larger bodies get 413
  std::size_t connection_threads = 8;
  RequestLimits limits;
  ServiceOptions service;
  std::string cors_origin;               // "": no CORS headers; "*" or one origin
  std::vector<std::string> model_dirs;   // each member's directory, for GET /info
};

// "" when origin can be --cors's value ("*" or scheme://host[:port], nothing else), else why
// not: it goes into a header verbatim.
std::string cors_origin_problem(const std::string& origin);

class Server {
 public:
  Server(const LineTranslator& translator, std::string model, const ServerOptions& options);
  // A memory network: POST /answer instead of POST /translate. options.model_dirs[0], when
  // given, is its directory (GET /info reads its training state).
  Server(const LoadedMemoryModel& memory, std::string model, const ServerOptions& options);
  // A speech model (model.kind las): POST /transcribe. options.model_dirs[0] as for memory.
  Server(const LoadedModel& speech, std::string model, const ServerOptions& options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Binds the socket; returns the port. heed::Error naming host:port when it cannot.
  int bind();
  // Serves until stop(); then finishes the requests it accepted and returns.
  void run();
  // Stops accepting connections; safe from any thread (a signal handler's thread too) and
  // more than once.
  void stop();

 private:
  Server(const LineTranslator* translator, const LoadedMemoryModel* memory,
         const LoadedModel* speech, std::string model, const ServerOptions& options);
  void routes();
  void translate_route();
  void answer_route();
  void transcribe_route();
  void info_and_cors_routes();
  const LineTranslator* translator_;  // a text model, or
  const LoadedMemoryModel* memory_;   // a memory network, or
  const LoadedModel* speech_;         // a speech model
  std::mutex decoding_;               // held while speech_ decodes
  std::string model_;
  std::string kind_;  // model.kind (the first member's, for an ensemble)
  ServerOptions options_;
  std::string info_;  // GET /info's body, built once
  std::unique_ptr<httplib::Server> http_;
  std::unique_ptr<TranslationService> service_;
  std::atomic<std::size_t> served_{0};
  int listening_socket_ = -1;  // set by the socket options while binding
};

}  // namespace heed::serve
