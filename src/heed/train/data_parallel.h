#pragma once
// DataParallel: the ranks of a training run as the training loop sees them
// (docs/DISTRIBUTED.md). Rank 0 prepares the directory, validates, logs and saves; every rank
// holds the same global batch and trains on its share, the gradients summed during the
// backward pass (dist/gradient_sync.h). Everything that must come out the same on every rank
// goes through here: whether the run could start, when it stops, the parameters (by
// checksum), the losses and the dev metric. Alone (no mpirun), each of these is this
// process's own and no collective is called.
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/base/random.h"
#include "heed/data/batch.h"
#include "heed/dist/gradient_sync.h"
#include "heed/dist/world.h"

namespace heed {

class TrainingTask;

class DataParallel {
 public:
  // world nullptr: this process alone.
  explicit DataParallel(const dist::World* world);

  bool leader() const { return world_.leader(); }  // rank 0, or the only process
  bool distributed() const { return world_.distributed(); }

  // Runs lead() on rank 0, then, once it returned, follow() on every other rank (which read
  // what rank 0 wrote into the directory). When lead() throws, the other ranks throw too.
  void lead_then_follow(const std::function<void()>& lead, const std::function<void()>& follow) const;

  // Data-parallel only: the gradient sums of params, and each rank its own generator for
  // dropout and sampling (the same initialisation came from the same seed).
  void start(const std::vector<Var>& params, double bucket_mb, Rng& rng, std::uint64_t seed,
             std::int64_t step);
  // The line the log opens with ("data-parallel over 2 ranks (...); ..."); "" alone.
  std::string describe_start() const;
  // The time spent waiting for gradient sums, once steps were made; "" otherwise.
  std::string describe_end() const;

  // heed::Error unless every rank holds rank 0's parameters (when: "after initialisation").
  void check_same_parameters(const std::vector<Var>& params, const char* when) const;
  // Whether any rank was asked to stop or ran out of time, and rank 0's training clock
  // (seconds): every rank gets the same answers. A schedule that reads the clock (a linear
  // decay to training.max_seconds) must read this one, or each rank's own clock would give
  // each its own learning rate and their parameters would part.
  void agree(bool& interrupted, bool& out_of_time, double& seconds) const;
  // A step or a save failed on this rank alone, while the others go on into the next
  // collective: finishing MPI would wait for them for ever. Alone, rethrows the exception
  // being handled; data-parallel, throws dist::RankFailure with its message, which
  // `heed train` reports and then aborts the whole run with (mpirun stops every rank).
  [[noreturn]] void fail_alone() const;
  // One global batch: this rank's share through task.forward_backward, the gradient sums,
  // and the whole batch's mean target-token loss over every rank.
  double step(const Batch& batch, const Corpus& corpus, TrainingTask& task);
  // The mean of per-sentence values over the whole batch, count being this rank's share of
  // the divisor (a collective: every rank calls it as often, its share empty or not).
  double whole_batch_mean(std::span<const double> values, double count) const;
  // Rank 0's value to every rank.
  void broadcast(double& value) const;

 private:
  const dist::World& world_;
  std::unique_ptr<dist::GradientSync> sync_;  // data-parallel runs only
};

}  // namespace heed
