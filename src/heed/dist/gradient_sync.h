#pragma once
// GradientSync: sums the parameters' gradients over the ranks of a data-parallel run while
// the backward pass is still running (docs/DISTRIBUTED.md#gradients). The parameters are
// grouped into buckets of about bucket_bytes, in the reverse of their order (the order in
// which backward finishes them). Watching the tape (autograd/tape.h), it knows a parameter's
// gradient is final once the earliest tape entry that read it has been replayed; when all of
// a bucket's gradients are final it starts a non-blocking MPI_Iallreduce of the bucket, and
// polls the ones in flight between tape entries so that they progress during the backward
// pass. finish() waits for the rest and writes the sums back into the gradients.
#include <cstddef>
#include <memory>
#include <vector>

#include "heed/autograd/tape.h"
#include "heed/autograd/var.h"
#include "heed/dist/world.h"

namespace heed::dist {

struct SyncStats {
  std::size_t steps = 0;
  std::size_t buckets = 0;          // per step
  std::size_t bytes = 0;            // gradient bytes each rank sends into the sum, per step
  double wait_seconds = 0.0;        // in finish(), summed over steps: the exposed part
  std::size_t started_in_backward = 0;  // buckets started before finish(), summed over steps
  std::vector<std::size_t> start_order;  // the latest step's buckets, in the order they started
};

class GradientSync : public TapeObserver {
 public:
  static constexpr std::size_t kDefaultBucketBytes = 1 << 20;
  // bucket_bytes 0: one bucket per parameter.

  GradientSync(const World& world, std::vector<Var> params,
               std::size_t bucket_bytes = kDefaultBucketBytes);
  ~GradientSync() override;
  GradientSync(const GradientSync&) = delete;
  GradientSync& operator=(const GradientSync&) = delete;

  // Before the step's forward pass: observes this thread's tape.
  void begin_step();
  // After the backward pass (or instead of it, on a rank given no sentence of the batch):
  // starts the buckets not started yet, waits for every sum, and leaves each gradient
  // holding the sum over the ranks. Stops observing the tape.
  void finish();

  const SyncStats& stats() const { return stats_; }

  void read(std::size_t entry, const Var& input) override;
  void replayed(std::size_t entry) override;

 private:
  struct Impl;
  void ready(std::size_t param);
  void start(std::size_t bucket);

  const World& world_;
  std::vector<Var> params_;
  std::unique_ptr<Impl> impl_;
  SyncStats stats_;
};

}  // namespace heed::dist
