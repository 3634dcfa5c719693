#pragma once
// TranslationService: the server's bounded queue of translation jobs and the workers that
// decode them (docs/cli/serve.md#how-requests-are-served).
//
// submit() queues a request's sentences and returns a future for their translations; when
// `queue` jobs already wait it refuses at once (ApiError 503) instead of letting latency
// grow without bound. Each worker takes the oldest job and every other waiting job that
// decodes the same way (beam, n-best, attention), up to max_batch_sentences sentences, and
// translates them in one LineTranslator::translate call: requests of several clients share
// batches. stop() refuses new jobs, lets the workers finish every queued one and joins them,
// so no accepted request is dropped. Saliency maps (LineTranslator::align_pieces) run one at a
// time: they use the parameters' gradient buffers.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "heed/serve/request.h"
#include "heed/translate/line_translator.h"

namespace heed::serve {

struct ServiceOptions {
  std::size_t queue = 32;                 // jobs that may wait; one more is refused (503)
  std::size_t workers = 1;                // decoding threads
  // TranslateOptions::threads of each worker's calls: batches of one call decoded side by
  // side (0: one per hardware thread). The kernels always run single-threaded: OpenMP teams
  // spin-wait, and on a machine whose cores are busy that made each batch 10-50x slower.
  std::size_t threads = 1;
  std::size_t max_batch_sentences = 256;  // sentences decoded in one call
  std::size_t batch_size = 32;            // TranslateOptions::batch_size
  std::size_t max_input_tokens = 1000;    // longer sentences are skipped (an empty result)
  double len_a = 2.0, len_b = 10.0;       // the output limit a * |x| + b
};

// What a request gets back: its translations, and with "saliency" each sentence's saliency
// map of its best output (|output| x |source| row-major, EOS included on both sides; empty
// for a sentence without output).
struct ServiceResult {
  std::vector<Translation> translations;
  std::vector<std::vector<float>> saliency;
};

struct ServiceStats {
  std::size_t jobs = 0;      // requests translated
  std::size_t calls = 0;     // LineTranslator::translate calls (jobs / calls: batching across clients)
  std::size_t sentences = 0;
  std::size_t refused = 0;   // submits refused with 503
  std::size_t waiting = 0;   // jobs in the queue now
  std::size_t decoding = 0;  // jobs a worker is translating now
};

class TranslationService {
 public:
  TranslationService(const LineTranslator& translator, const ServiceOptions& options);
  ~TranslationService();  // stop()
  TranslationService(const TranslationService&) = delete;
  TranslationService& operator=(const TranslationService&) = delete;

  std::future<ServiceResult> submit(TranslateRequest request);
  void stop();
  ServiceStats stats() const;

 private:
  struct Job {
    TranslateRequest request;
    std::promise<ServiceResult> result;
  };
  void work();
  void run(std::vector<Job>& jobs);
  std::vector<std::vector<float>> saliency(const std::vector<Translation>& translations) const;

  const LineTranslator& translator_;
  ServiceOptions options_;
  mutable std::mutex mutex_;
  mutable std::mutex saliency_mutex_;
  std::condition_variable wake_;
  std::deque<Job> queue_;
  bool stopping_ = false;
  ServiceStats stats_;
  std::vector<std::thread> workers_;
};

}  // namespace heed::serve
