#include "heed/data/batch_sampler.h"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "heed/base/error.h"

namespace heed {
namespace {

// Fisher–Yates with Rng::below, whose output does not depend on the standard library.
template <typename T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

}  // namespace

std::vector<std::vector<std::size_t>> plan_batches(const Corpus& corpus,
                                                   const BatchOptions& options, Rng& rng) {
  HEED_CHECK(options.max_tokens > 0, "the batch token budget must be positive");
  const std::size_t n = corpus.size();
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (options.shuffle) shuffle(order, rng);

  auto src_len = [&](std::size_t k) { return corpus.src[k].size(); };
  auto tgt_len = [&](std::size_t k) { return corpus.has_target() ? corpus.tgt[k].size() : 0; };
  const std::size_t pool = options.pool_size == 0 ? std::max<std::size_t>(n, 1) : options.pool_size;

  std::vector<std::vector<std::size_t>> batches;
  for (std::size_t start = 0; start < n; start += pool) {
    auto first = order.begin() + static_cast<std::ptrdiff_t>(start);
    auto last = order.begin() + static_cast<std::ptrdiff_t>(std::min(n, start + pool));
    // Stable, so ties keep the shuffled order and the plan depends only on the rng.
    if (options.sort_by_length)
      std::stable_sort(first, last, [&](std::size_t a, std::size_t b) {
        return src_len(a) != src_len(b) ? src_len(a) < src_len(b) : tgt_len(a) < tgt_len(b);
      });
    std::vector<std::size_t> current;
    std::size_t max_len = 0;
    for (auto it = first; it != last; ++it) {
      std::size_t len = std::max(src_len(*it), tgt_len(*it));
      std::size_t grown = std::max(max_len, len);
      bool fits = (current.size() + 1) * grown <= options.max_tokens &&
                  (options.max_sentences == 0 || current.size() < options.max_sentences);
      if (!current.empty() && !fits) {
        batches.push_back(std::move(current));
        current.clear();
        grown = len;
      }
      current.push_back(*it);
      max_len = grown;
    }
    if (!current.empty()) batches.push_back(std::move(current));
  }
  if (options.shuffle) shuffle(batches, rng);
  return batches;
}

std::string BatchPosition::to_string() const {
  std::ostringstream os;
  os << "epoch " << epoch << " batch " << batch << " corpus " << corpus_size << " rng "
     << rng_state;
  return os.str();
}

BatchPosition BatchPosition::parse(const std::string& text) {
  std::istringstream is(text);
  BatchPosition p;
  std::string k1, k2, k3, k4;
  is >> k1 >> p.epoch >> k2 >> p.batch >> k3 >> p.corpus_size >> k4;
  HEED_CHECK(!is.fail() && k1 == "epoch" && k2 == "batch" && k3 == "corpus" && k4 == "rng",
             "corrupt batch position '", text.substr(0, 60),
             "'; expected 'epoch E batch B corpus N rng STATE'");
  is >> std::ws;
  std::getline(is, p.rng_state);
  HEED_CHECK(!p.rng_state.empty(), "corrupt batch position: no generator state");
  return p;
}

BatchSampler::BatchSampler(const Corpus& corpus, const BatchOptions& options)
    : corpus_(corpus), options_(options), rng_(options.seed) {
  HEED_CHECK(corpus.size() > 0, "no sentence pairs to train on (all were filtered out?)");
  start_epoch(0);
}

void BatchSampler::start_epoch(std::uint64_t epoch) {
  position_.epoch = epoch;
  position_.batch = 0;
  position_.corpus_size = corpus_.size();
  position_.rng_state = rng_.state();
  plan_ = plan_batches(corpus_, options_, rng_);
}

std::optional<Batch> BatchSampler::next() {
  if (position_.batch >= plan_.size()) {
    start_epoch(position_.epoch + 1);
    return std::nullopt;
  }
  return make_batch(corpus_, plan_[position_.batch++]);
}

void BatchSampler::set_position(const BatchPosition& position) {
  HEED_CHECK(position.corpus_size == corpus_.size(), "cannot resume: the saved batch position is for ",
             position.corpus_size, " sentence pairs but the corpus has ", corpus_.size(),
             " (were the data or the length limits changed?)");
  rng_.set_state(position.rng_state);
  std::uint64_t epoch = position.epoch;
  start_epoch(epoch);
  HEED_CHECK(position.batch <= plan_.size(), "cannot resume: batch ", position.batch,
             " is past the end of epoch ", epoch, " (", plan_.size(), " batches)");
  position_.batch = position.batch;
}

}  // namespace heed
