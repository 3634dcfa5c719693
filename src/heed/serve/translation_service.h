#pragma once
// TranslationService: the server's bounded queue of translation jobs and the workers that
// decode them (docs/cli/serve.md#how-requests-are-served).
//
// submit() queues a request's sentences and returns a future for their translations; when
// `queue` jobs already wait it refuses at once (ApiError 503) instead of letting latency
// grow without bound. Each worker takes the oldest job and every other waiting job that
// decodes the same way (beam, n-best, attention), up to max_batch_sentences sentences, and
// translates them in one LineTranslator::translate call: requests of several clients share
// batches. With a batching window (batch_wait), a worker whose batch holds fewer requests than
// there are active clients waits up to that long for the others before decoding: clients
// that send their next request as soon as an answer arrives then meet in full batches
// instead of a few at a time. A worker waits only while every other worker is busy (an idle
// one would take the arrivals at once). A client is a keep-alive connection that has sent more than one
// request. A lone client never waits (docs/cli/serve.md#batching-window).
// stop() refuses new jobs, lets the workers finish every queued one and joins them,
// so no accepted request is dropped. Saliency maps (LineTranslator::align_pieces) run one at a
// time: they use the parameters' gradient buffers.
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "heed/serve/request.h"
#include "heed/translate/best_saliency.h"
#include "heed/translate/line_translator.h"

namespace heed::serve {

struct ServiceOptions {
  std::size_t queue = 32;                 // jobs that may wait; one more is refused (503)
  std::size_t workers = 0;                // decoding threads; 0: one per hardware thread
  // TranslateOptions::threads of each worker's calls: batches of one call decoded side by
  // side (0: one per hardware thread). The kernels always run single-threaded: OpenMP teams
  // spin-wait, and on a machine whose cores are busy that made each batch 10-50x slower.
  std::size_t threads = 1;
  std::size_t max_batch_sentences = 256;  // sentences decoded in one call
  std::size_t batch_size = 32;            // TranslateOptions::batch_size
  std::size_t max_input_tokens = 1000;    // longer sentences are skipped (an empty result)
  // A vocabulary shortlist every call decodes with (TranslateOptions::shortlist); null: none.
  std::shared_ptr<const ShortlistIndex> shortlist;
  double len_a = 2.0, len_b = 10.0;       // the output limit a * |x| + b
  // The batching window: how long a worker may wait for the requests of other active clients
  // (those that sent one within active_client) before decoding a batch; 0: never wait.
  std::chrono::microseconds batch_wait{0};
  std::chrono::milliseconds active_client{100};
  // Requests that can arrive at once (the server's connection threads): a batch never waits
  // for more clients than this.
  std::size_t clients_at_once = 8;
};

// The workers options asks for: options.workers, or one per hardware thread for 0.
std::size_t worker_count(const ServiceOptions& options);

// What a request gets back: its translations, and with "saliency" each sentence's saliency
// map of its best output (|output| x |source| row-major, EOS included on both sides; empty
// for a sentence without output), and with "heads" each sentence's heads of its best output
// (BestHypothesisMaps without saliency; empty for a model with one attention).
struct ServiceResult {
  std::vector<Translation> translations;
  std::vector<std::vector<float>> saliency;
  std::vector<BestHypothesisMaps> heads;
};

struct ServiceStats {
  std::size_t jobs = 0;      // requests translated
  std::size_t calls = 0;     // LineTranslator::translate calls (jobs / calls: batching across clients)
  std::size_t sentences = 0;
  std::size_t refused = 0;   // submits refused with 503
  std::size_t waiting = 0;   // jobs in the queue now
  std::size_t decoding = 0;  // jobs a worker is translating now
  std::size_t waits = 0;     // batches that waited in the batching window
};

class TranslationService {
 public:
  TranslationService(const LineTranslator& translator, const ServiceOptions& options);
  ~TranslationService();  // stop()
  TranslationService(const TranslationService&) = delete;
  TranslationService& operator=(const TranslationService&) = delete;

  // client names the connection the request came on (any string stable for the connection):
  // the batching window counts the clients seen lately.
  std::future<ServiceResult> submit(TranslateRequest request, const std::string& client = "");
  void stop();
  ServiceStats stats() const;

 private:
  struct Job {
    TranslateRequest request;
    std::promise<ServiceResult> result;
  };
  void work();
  // Moves into jobs the queued jobs that decode as jobs.front() does, while the batch stays
  // within max_batch_sentences; sentences counts the batch's sentences. Under mutex_.
  void take_compatible(std::vector<Job>& jobs, std::size_t& sentences);
  // The clients that sent a request within active_client of now (older ones forgotten) and
  // more than one on their connection (a connection used once, as by curl, is no client to
  // wait for), at most clients_at_once. Under mutex_.
  std::size_t active_clients(std::chrono::steady_clock::time_point now);
  void run(std::vector<Job>& jobs);
  std::vector<BestHypothesisMaps> maps(const std::vector<Translation>& translations,
                                       bool saliency) const;

  const LineTranslator& translator_;
  ServiceOptions options_;
  mutable std::mutex mutex_;
  mutable std::mutex saliency_mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  ServiceStats stats_;
  struct Client {
    std::chrono::steady_clock::time_point last;
    std::size_t requests = 0;
  };
  std::map<std::string, Client> clients_;  // by connection, while active
  std::size_t busy_workers_ = 0;           // workers decoding a batch now
  std::vector<std::thread> workers_;
};

}  // namespace heed::serve
