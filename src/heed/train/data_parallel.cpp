#include "heed/train/data_parallel.h"

#include <algorithm>
#include <new>
#include <utility>

#include "heed/base/checksum.h"
#include "heed/base/error.h"
#include "heed/dist/rank_failure.h"
#include "heed/train/task.h"

namespace heed {

namespace {

const dist::World& single_process() {
  static const dist::World one;  // never initialises MPI: no mpirun variables are read here
  return one;
}

// "on a, 2 on b": each host once, in rank order, with its rank count when above one.
std::string join_hosts(const std::vector<std::string>& hosts) {
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& h : hosts) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == h; });
    if (it == counts.end()) counts.emplace_back(h, 1);
    else ++it->second;
  }
  std::string out;
  for (const auto& [h, n] : counts)
    out += (out.empty() ? "" : ", ") + (n > 1 ? std::to_string(n) + " on " : "on ") + h;
  return out;
}

std::string parameter_checksum(const std::vector<Var>& params) {
  Checksum sum;
  for (const Var& p : params)
    sum.update(p.value().raw(), static_cast<std::size_t>(p.value().numel()) * dtype_size(p.dtype()));
  return sum.str();
}

}  // namespace

DataParallel::DataParallel(const dist::World* world)
    : world_(world ? *world : single_process()) {}

void DataParallel::lead_then_follow(const std::function<void()>& lead,
                                    const std::function<void()>& follow) const {
  int ready = 0;
  if (world_.leader()) {
    try {
      lead();
    } catch (...) {
      world_.broadcast(&ready, sizeof ready);
      throw;
    }
    ready = 1;
    world_.broadcast(&ready, sizeof ready);
  } else {
    world_.broadcast(&ready, sizeof ready);
    HEED_CHECK(ready == 1, world_.describe(),
               ": rank 0 could not start the run (its message above says why)");
    follow();
  }
}

void DataParallel::start(const std::vector<Var>& params, double bucket_mb, Rng& rng,
                         std::uint64_t seed, std::int64_t step) {
  if (!world_.distributed()) return;
  sync_ = std::make_unique<dist::GradientSync>(world_, params,
                                               static_cast<std::size_t>(bucket_mb * 1048576.0));
  // Each rank its own dropout masks (the same initialisation came from the same seed).
  if (!world_.leader())
    rng = Rng(seed ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(world_.rank())) ^
              static_cast<std::uint64_t>(step));
}

std::string DataParallel::describe_start() const {
  if (!world_.distributed()) return "";
  return "data-parallel over " + std::to_string(world_.size()) + " ranks (" +
         join_hosts(world_.hosts()) + "); " + std::to_string(sync_->stats().buckets) +
         (sync_->stats().buckets == 1 ? " gradient bucket, " : " gradient buckets, ") +
         format_number("%.2f", static_cast<double>(sync_->stats().bytes) / 1048576.0) +
         " MiB summed per step";
}

std::string DataParallel::describe_end() const {
  if (!sync_ || sync_->stats().steps == 0) return "";
  const dist::SyncStats& st = sync_->stats();
  const double per_step = static_cast<double>(st.steps);
  return "data-parallel: " + format_number("%.1f", 1e3 * st.wait_seconds / per_step) +
         " ms per step waiting for the gradient sums after the backward pass; " +
         format_number("%.1f", static_cast<double>(st.started_in_backward) / per_step) + " of " +
         std::to_string(st.buckets) + " buckets started during it";
}

void DataParallel::check_same_parameters(const std::vector<Var>& params, const char* when) const {
  if (!world_.distributed()) return;
  const std::string mine = parameter_checksum(params);
  std::string leaders = mine;
  world_.broadcast(leaders);
  HEED_CHECK(mine == leaders, world_.describe(), ": the parameters differ from rank 0's ", when,
             " (", mine, " against ", leaders,
             "); every rank must see the same output directory and the same heed");
}

void DataParallel::agree(bool& interrupted, bool& out_of_time, double& seconds) const {
  if (!world_.distributed()) return;
  double any[3] = {interrupted ? 1.0 : 0.0, out_of_time ? 1.0 : 0.0,
                   world_.leader() ? seconds : 0.0};
  world_.allreduce_sum(any, 3);
  interrupted = any[0] > 0.0;
  out_of_time = any[1] > 0.0;
  seconds = any[2];
}

void DataParallel::fail_alone() const {
  if (!world_.distributed()) throw;
  try {
    throw;
  } catch (const std::bad_alloc&) {
    throw dist::RankFailure(world_.describe() + ": out of memory", 1);
  } catch (const UsageError& e) {
    throw dist::RankFailure(e.what(), 2);
  } catch (const std::exception& e) {
    throw dist::RankFailure(e.what(), 1);
  }
}

double DataParallel::step(const Batch& batch, const Corpus& corpus, TrainingTask& task) {
  const auto batch_tokens = static_cast<double>(batch.tgt_tokens);
  if (!sync_) return task.forward_backward(batch, BatchShare{});  // the whole batch
  // Every rank holds the same global batch; it trains on every size-th sentence from its
  // rank (lengths are sorted within a batch, so the shares have about as many tokens).
  std::vector<std::size_t> mine;
  for (std::size_t i = static_cast<std::size_t>(world_.rank()); i < batch.members.size();
       i += static_cast<std::size_t>(world_.size()))
    mine.push_back(batch.members[i]);
  sync_->begin_step();
  const BatchShare share{batch_tokens, this};
  double sums[2] = {0.0, 0.0};  // token losses, tokens
  if (!mine.empty()) {
    const Batch part = make_batch(corpus, mine);
    sums[1] = static_cast<double>(part.tgt_tokens);
    sums[0] = task.forward_backward(part, share) * sums[1];
  } else {
    task.skip_share(share);
  }
  sync_->finish();
  world_.allreduce_sum(sums, 2);
  HEED_CHECK(sums[1] == batch_tokens, world_.describe(), ": the ranks' shares hold ", sums[1],
             " target tokens, the batch ", batch_tokens);
  return sums[0] / batch_tokens;
}

double DataParallel::whole_batch_mean(std::span<const double> values, double count) const {
  double sums[2] = {0.0, count};
  for (double v : values) sums[0] += v;
  world_.allreduce_sum(sums, 2);
  return sums[1] > 0 ? sums[0] / sums[1] : 0.0;
}

void DataParallel::broadcast(double& value) const { world_.broadcast(&value, sizeof value); }

}  // namespace heed
