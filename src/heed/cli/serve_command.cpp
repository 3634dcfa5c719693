#include "heed/cli/serve_command.h"

#include <CLI/CLI.hpp>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/base/stop_signals.h"
#include "heed/cli/model_options.h"
#include "heed/cli/shortlist_option.h"
#include "heed/cli/validators.h"
#include "heed/serve/server.h"
#include "heed/serve/watch_server.h"
#include "heed/store/model_dir.h"
#include "heed/translate/line_translator.h"

namespace heed::cli {
namespace {

// The server a stop signal stops (the handler is a plain function; base/stop_signals.h).
std::atomic<serve::Server*> running_server{nullptr};
std::atomic<serve::WatchServer*> running_watch{nullptr};

void stop_server() {
  if (serve::Server* s = running_server.load()) s->stop();
  if (serve::WatchServer* w = running_watch.load()) w->stop();
}

class ServeCommand : public Command {
 public:
  std::string name() const override { return "serve"; }
  std::string description() const override {
    return "Serve a model over HTTP: POST /translate (JSON; POST /answer for a memory "
           "network, POST /transcribe with a WAV file for a speech model), GET /health, GET "
           "/info, and a live page at / that draws each output's attention (a memory network's "
           "hops, a speech model's attention over the spectrogram)";
  }

  void setup(CLI::App& app) override {
    add_model_options(app, model_);
    app.add_option("--host", options_.host,
                   "address to listen on (default loopback only; 0.0.0.0 exposes the server to "
                   "the network)")
        ->capture_default_str();
    app.add_option("--port,-p", options_.port, "TCP port (0: any free port, printed at start)")
        ->capture_default_str()
        ->check(int_range(0, 65535));
    app.add_option("--workers", options_.service.workers,
                   "translation threads, each decoding whole batches (0: one per hardware "
                   "thread)")
        ->capture_default_str()
        ->check(int_range(0, 256));
    app.add_option("--threads,-t", options_.service.threads,
                   "threads each worker decodes the batches of one request set with (0: one per "
                   "hardware thread); the kernels run single-threaded")
        ->capture_default_str()
        ->check(int_range(0, 4096));
    app.add_option("--queue", options_.service.queue,
                   "requests that may wait for a worker; beyond that the answer is 503")
        ->capture_default_str()
        ->check(int_range(1, 100000));
    app.add_option("--batch-wait", batch_wait_ms_,
                   "batching window in ms: a worker waits up to this long for the next requests "
                   "of the other keep-alive clients active in the last 100 ms before decoding "
                   "(0: never wait; a lone client never waits)")
        ->capture_default_str()
        ->check(real_range(0.0, 1000.0));
    app.add_option("--connections", options_.connection_threads,
                   "connection threads (requests read and answered at once)")
        ->capture_default_str()
        ->check(int_range(1, 1024));
    app.add_option("--max-body", options_.max_body_bytes,
                   "largest request body in bytes; larger ones get 413")
        ->capture_default_str()
        ->check(int_range(64, 1 << 30));
    app.add_option("--max-sentences", options_.limits.max_sentences,
                   "sentences in one request; more get 413")
        ->capture_default_str()
        ->check(int_range(1, 100000));
    app.add_option("--max-audio-seconds", options_.limits.max_audio_seconds,
                   "a speech model: the longest audio POST /transcribe takes; longer gets 413")
        ->capture_default_str()
        ->check(real_range(0.1, 3600.0));
    app.add_option("--cors", options_.cors_origin,
                   "let pages of this origin (scheme://host[:port], or * for any) call the API: "
                   "Access-Control-Allow-Origin on every answer, OPTIONS answered")
        ->check(CLI::Validator(
            [](const std::string& origin) { return serve::cors_origin_problem(origin); },
            "ORIGIN"));
    app.add_option("--max-input-len", options_.service.max_input_tokens,
                   "longest sentence decoded, in source tokens with EOS; longer ones come back "
                   "\"skipped\"")
        ->capture_default_str()
        ->check(int_range(1, 100000000));
    app.add_option("--shortlist", shortlist_,
                   "a vocabulary shortlist (made by heed shortlist) every translation decodes "
                   "with (docs/DECODING.md#vocabulary-shortlists)")
        ->check(CLI::ExistingFile);
    app.add_option("--watch", watch_,
                   "instead of a model: serve the training curves of this heed train output "
                   "directory, redrawn as its history grows (repeat: several runs)");
    // --model is required unless --watch is given (then it is refused).
    app.get_option("--model")->required(false);
    app.callback([this] {
      HEED_CHECK(watch_.empty() || model_.dirs.empty(),
                 "serve: --watch serves training curves without a model; give --model or "
                 "--watch, not both");
      HEED_CHECK(!watch_.empty() || !model_.dirs.empty(),
                 "serve: --model is required (or --watch DIR for training curves)");
    });
    app.footer(
        "Loads the model once, then answers until SIGINT or SIGTERM, after which it stops\n"
        "accepting connections, answers the requests it accepted and exits 0. Requests of\n"
        "several clients waiting at once are decoded in shared batches. API and page:\n"
        "docs/cli/serve.md. Exit codes: 0 stopped cleanly, 1 runtime error (e.g. the port is\n"
        "in use, by another heed serve too), 2 bad command line.");
  }

  int run() override {
    if (!watch_.empty()) return run_watch();
    const std::vector<ModelSpec> specs = model_.specs();
    for (const ModelSpec& s : specs) options_.model_dirs.push_back(s.dir);
    const ModelKind kind = load_model_config(specs.front().dir).model.kind;
    if (answers_questions(kind)) return run_memory(specs);
    if (transcribes_speech(kind)) return run_speech(specs);
    const LineTranslator translator = LineTranslator::load(specs);
    options_.service.shortlist = load_shortlist_option(shortlist_, translator.model(0), "serve");
    options_.service.batch_wait =
        std::chrono::microseconds(static_cast<std::int64_t>(std::lround(batch_wait_ms_ * 1000.0)));
    serve::Server server(translator, model_.label(), options_);
    const std::size_t workers = serve::worker_count(options_.service);
    return serve_until_stopped(server, std::to_string(workers) + " worker" +
                                           (workers == 1 ? "" : "s"));
  }

 private:
  std::string shortlist_;
  // A memory network (model.kind memn2n) answers POST /answer, alone: no ensemble.
  int run_memory(const std::vector<ModelSpec>& specs) {
    HEED_CHECK(specs.size() == 1, "serve: ", specs.front().dir,
               " holds a memn2n model (a memory network), which is served alone: give one "
               "--model and at most one --weights, not an ensemble");
    const LoadedMemoryModel memory = load_memory_model_dir(specs[0].dir, specs[0].weights);
    serve::Server server(memory, model_.label(), options_);
    return serve_until_stopped(server, "a memory network: POST /answer");
  }

  // A speech model (model.kind las) answers POST /transcribe, alone: no ensemble.
  int run_speech(const std::vector<ModelSpec>& specs) {
    HEED_CHECK(specs.size() == 1, "serve: ", specs.front().dir,
               " holds a las model (a speech model), which is served alone: give one --model "
               "and at most one --weights, not an ensemble");
    const LoadedModel speech = load_speech_model_dir(specs[0].dir, specs[0].weights);
    serve::Server server(speech, model_.label(), options_);
    return serve_until_stopped(server, "a speech model: POST /transcribe with a WAV file");
  }

  int serve_until_stopped(serve::Server& server, const std::string& what) {
    const int port = server.bind();
    running_server = &server;
    set_stop_handler(stop_server);
    std::cerr << "heed serve: " << model_.label() << " on http://" << options_.host << ":" << port
              << "/ (" << what << "); stop with Ctrl-C" << std::endl;
    server.run();
    set_stop_handler(nullptr);
    running_server = nullptr;
    std::cerr << "heed serve: stopped" << std::endl;
    return 0;
  }

  int run_watch() {
    serve::WatchServer server(watch_, options_.host, options_.port);
    const int port = server.bind();
    running_watch = &server;
    set_stop_handler(stop_server);
    std::cerr << "heed serve: training curves of " << watch_.size()
              << (watch_.size() == 1 ? " run" : " runs") << " on http://" << options_.host << ":"
              << port << "/; stop with Ctrl-C" << std::endl;
    server.run();
    set_stop_handler(nullptr);
    running_watch = nullptr;
    std::cerr << "heed serve: stopped" << std::endl;
    return 0;
  }

  std::vector<std::string> watch_;
  ModelFlags model_;
  serve::ServerOptions options_;
  double batch_wait_ms_ = 0.0;
};

}  // namespace

std::unique_ptr<Command> make_serve_command() { return std::make_unique<ServeCommand>(); }

}  // namespace heed::cli
