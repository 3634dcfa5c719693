#include "heed/serve/translation_service.h"

#include <algorithm>
#include <exception>
#include <thread>
#include <utility>

#include "heed/kernels/gemm.h"
#include "heed/translate/best_saliency.h"

namespace heed::serve {

std::size_t worker_count(const ServiceOptions& options) {
  return options.workers > 0 ? options.workers : std::max(1u, std::thread::hardware_concurrency());
}

TranslationService::TranslationService(const LineTranslator& translator,
                                       const ServiceOptions& options)
    : translator_(translator), options_(options) {
  options_.workers = worker_count(options_);
  HEED_CHECK(options_.queue >= 1 && options_.max_batch_sentences >= 1,
             "serve: queue and batch sentences must be at least 1");
  for (std::size_t i = 0; i < options_.workers; ++i) workers_.emplace_back([this] { work(); });
}

TranslationService::~TranslationService() { stop(); }

std::future<ServiceResult> TranslationService::submit(TranslateRequest request,
                                                      const std::string& client) {
  std::lock_guard lock(mutex_);
  if (options_.batch_wait.count() > 0) {
    const auto now = std::chrono::steady_clock::now();
    active_clients(now);  // forgets the clients gone quiet, so the map stays small
    Client& c = clients_[client];
    c.last = now;
    ++c.requests;
  }
  if (stopping_) {
    ++stats_.refused;
    throw ApiError(503, "the server is stopping");
  }
  if (queue_.size() >= options_.queue) {
    ++stats_.refused;
    throw ApiError(503, "overloaded: " + std::to_string(queue_.size()) +
                            " requests are waiting; retry later");
  }
  queue_.push_back(Job{std::move(request), {}});
  auto future = queue_.back().result.get_future();
  // A worker waiting in the batching window must see the new job, not only an idle one.
  if (options_.batch_wait.count() > 0) {
    wake_.notify_all();
  } else {
    wake_.notify_one();
  }
  return future;
}

void TranslationService::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && workers_.empty()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_)
    if (w.joinable()) w.join();
  workers_.clear();
}

ServiceStats TranslationService::stats() const {
  std::lock_guard lock(mutex_);
  ServiceStats s = stats_;
  s.waiting = queue_.size();
  return s;
}

void TranslationService::take_compatible(std::vector<Job>& jobs, std::size_t& sentences) {
  for (auto it = queue_.begin(); it != queue_.end();) {
    const std::size_t n = it->request.sentences.size();
    if (it->request.same_decoding(jobs.front().request) &&
        sentences + n <= options_.max_batch_sentences) {
      sentences += n;
      jobs.push_back(std::move(*it));
      it = queue_.erase(it);
    } else {
      ++it;
    }
  }
}

std::size_t TranslationService::active_clients(std::chrono::steady_clock::time_point now) {
  std::erase_if(clients_, [&](const auto& c) { return now - c.second.last > options_.active_client; });
  std::size_t active = 0;
  for (const auto& c : clients_) active += c.second.requests > 1;
  return std::min(active, options_.clients_at_once);
}

void TranslationService::work() {
  // Decoding steps are small GEMMs: one thread each (ServiceOptions::threads).
  kernels::set_num_threads(1);
  for (;;) {
    std::vector<Job> jobs;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping, and everything queued is done
      jobs.push_back(std::move(queue_.front()));
      queue_.pop_front();
      std::size_t sentences = jobs.front().request.sentences.size();
      take_compatible(jobs, sentences);
      // The batching window: wait for the other active clients' next requests, unless the
      // batch is full. Requests other workers are decoding count as arrived.
      // Only while every other worker is busy: an idle one would take the arrivals at once.
      if (options_.batch_wait.count() > 0 && busy_workers_ + 1 >= options_.workers) {
        const auto deadline = std::chrono::steady_clock::now() + options_.batch_wait;
        bool waited = false;
        while (!stopping_ && sentences < options_.max_batch_sentences &&
               jobs.size() + stats_.decoding < active_clients(std::chrono::steady_clock::now())) {
          waited = true;
          const bool timed_out = wake_.wait_until(lock, deadline) == std::cv_status::timeout;
          take_compatible(jobs, sentences);
          if (timed_out) break;
        }
        stats_.waits += waited;
      }
      stats_.decoding += jobs.size();
      ++busy_workers_;
    }
    run(jobs);
  }
}

void TranslationService::run(std::vector<Job>& jobs) {
  const TranslateRequest& first = jobs.front().request;
  TranslateOptions o;
  o.decode.beam = first.beam;
  o.decode.n_best = first.nbest;
  o.decode.len_a = options_.len_a;
  o.decode.len_b = options_.len_b;
  o.batch_size = options_.batch_size;
  o.keep_attention = first.needs_attention();
  o.threads = options_.threads;
  o.max_input_tokens = options_.max_input_tokens;
  o.shortlist = options_.shortlist;
  std::vector<std::string> lines;
  for (const auto& j : jobs)
    lines.insert(lines.end(), j.request.sentences.begin(), j.request.sentences.end());
  // The results are handed out only after the counts are updated, so that /health read
  // after an answer counts its batch.
  std::vector<ServiceResult> results(jobs.size());
  std::exception_ptr failure;
  try {
    std::vector<Translation> all = translator_.translate(lines, o);
    std::vector<BestHypothesisMaps> forced;  // saliency and heads: the forced pass
    if (first.saliency || first.heads) forced = maps(all, first.saliency);
    std::size_t at = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const auto from = static_cast<std::ptrdiff_t>(at);
      const auto to = static_cast<std::ptrdiff_t>(at + jobs[i].request.sentences.size());
      results[i].translations.assign(std::make_move_iterator(all.begin() + from),
                                     std::make_move_iterator(all.begin() + to));
      for (auto k = from; first.saliency && k < to; ++k)
        results[i].saliency.push_back(std::move(forced[static_cast<std::size_t>(k)].saliency));
      if (first.heads)
        results[i].heads.assign(std::make_move_iterator(forced.begin() + from),
                                std::make_move_iterator(forced.begin() + to));
      at = static_cast<std::size_t>(to);
    }
  } catch (...) {
    failure = std::current_exception();
  }
  {
    std::lock_guard lock(mutex_);
    --busy_workers_;
    stats_.decoding -= jobs.size();
    stats_.jobs += jobs.size();
    stats_.calls += 1;
    stats_.sentences += lines.size();
  }
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    if (failure) {
      jobs[i].result.set_exception(failure);
    } else {
      jobs[i].result.set_value(std::move(results[i]));
    }
  }
}

std::vector<BestHypothesisMaps> TranslationService::maps(
    const std::vector<Translation>& translations, bool saliency) const {
  std::lock_guard lock(saliency_mutex_);
  return best_hypothesis_maps(translator_, translations, options_.batch_size, saliency);
}

}  // namespace heed::serve
