#pragma once
// BatchSampler: the order in which a training run sees its batches. Each epoch shuffles
// the corpus, cuts it into pools, sorts each pool by length (so a batch holds sentences
// of similar length and little padding), packs batches under a token budget and shuffles
// the batches. Everything random comes from the sampler's own Rng, and its position
// (epoch, batch, generator state at the start of the epoch) can be saved and restored to
// resume exactly mid-epoch.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heed/base/random.h"
#include "heed/data/batch.h"
#include "heed/data/corpus.h"

namespace heed {

struct BatchOptions {
  std::size_t max_tokens = 4096;  // budget per batch, counting padding: B * max(m, n)
  std::size_t max_sentences = 0;  // rows per batch; 0 = no limit
  bool shuffle = true;            // shuffle sentences and batches every epoch
  bool sort_by_length = true;     // sort each pool by (source, target) length
  std::size_t pool_size = 8192;   // sentences per sorting pool; 0 = the whole corpus
  std::uint64_t seed = 1234;
};

// One epoch's batches as lists of corpus positions. With shuffle, consumes rng (the same
// rng state gives the same plan). A sentence longer than the budget gets a batch alone.
std::vector<std::vector<std::size_t>> plan_batches(const Corpus& corpus,
                                                   const BatchOptions& options, Rng& rng);

// Where a sampler stands; to_string()/parse() give a single-line text form for checkpoints.
struct BatchPosition {
  std::uint64_t epoch = 0;  // 0-based
  std::uint64_t batch = 0;  // batches of this epoch already handed out
  std::uint64_t corpus_size = 0;
  std::string rng_state;    // Rng::state() at the start of the epoch
  std::string to_string() const;
  static BatchPosition parse(const std::string& text);
  bool operator==(const BatchPosition&) const = default;
};

class BatchSampler {
 public:
  // Keeps a reference to the corpus, which must outlive the sampler.
  BatchSampler(const Corpus& corpus, const BatchOptions& options);

  // The next batch of the current epoch, or std::nullopt once the epoch is over; the
  // call after that starts the next epoch.
  std::optional<Batch> next();

  std::uint64_t epoch() const { return position_.epoch; }
  std::size_t batches_in_epoch() const { return plan_.size(); }
  const std::vector<std::vector<std::size_t>>& plan() const { return plan_; }

  BatchPosition position() const { return position_; }
  // Resumes at a saved position (heed::Error if it belongs to a corpus of another size).
  void set_position(const BatchPosition& position);

 private:
  void start_epoch(std::uint64_t epoch);
  const Corpus& corpus_;
  BatchOptions options_;
  Rng rng_;
  BatchPosition position_;
  std::vector<std::vector<std::size_t>> plan_;
};

}  // namespace heed
