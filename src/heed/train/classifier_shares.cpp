#include "heed/train/classifier_shares.h"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <exception>

#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/kernels/elementwise.h"
#include "heed/kernels/gemm.h"
#include "heed/train/ram_loss.h"

namespace heed {

namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

int classifier_share_count(std::int64_t images, int threads) {
  return static_cast<int>(std::clamp<std::int64_t>(std::min<std::int64_t>(threads, images / 16),
                                                   1, std::max(threads, 1)));
}

ClassifierShares::ClassifierShares(const ImageClassifier& model,
                                   std::function<std::unique_ptr<ImageClassifier>()> make)
    : model_(model), make_(std::move(make)), params_(model.parameters()) {}

ClassifierShares::Step ClassifierShares::forward_backward(const Tensor& images,
                                                          std::span<const std::int32_t> labels,
                                                          Rng& rng,
                                                          kernels::MatmulPrecision precision,
                                                          double reinforce_weight) {
  const std::int64_t B = images.dim(0);
  HEED_CHECK(B >= 1 && static_cast<std::int64_t>(labels.size()) == B, "training step: ",
             labels.size(), " labels for ", B, " images");
  const int S = classifier_share_count(B, kernels::num_threads());
  {
    ArenaScope heap(nullptr);  // the replicas' parameters and gradients outlive the step
    while (static_cast<int>(replicas_.size()) < S - 1) {
      std::unique_ptr<ImageClassifier> r = make_();
      const std::vector<Var> mine = r->parameters();
      HEED_CHECK(mine.size() == params_.size(), "training step: a replica of the model has ",
                 mine.size(), " parameters, the model ", params_.size());
      for (std::size_t i = 0; i < mine.size(); ++i) {
        HEED_CHECK(mine[i].shape() == params_[i].shape() && mine[i].dtype() == params_[i].dtype(),
                   "training step: a replica's parameter ", i, " is ", mine[i].shape().str(),
                   ", the model's ", params_[i].shape().str());
        mine[i].mutable_value() = params_[i].value();  // a view: the model's values
      }
      r->train(model_.training());
      replicas_.push_back(std::move(r));
      replica_params_.push_back(mine);
    }
    while (static_cast<int>(arenas_.size()) < S) arenas_.push_back(std::make_unique<Arena>());
  }
  std::vector<std::uint64_t> seeds(static_cast<std::size_t>(S));
  if (S > 1)
    for (auto& s : seeds) s = rng.next();
  for (int s = 1; s < S; ++s) replicas_[static_cast<std::size_t>(s - 1)]->zero_grad();

  std::vector<double> ce(static_cast<std::size_t>(S));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(S));
  const auto start = Clock::now();
  Clock::time_point forward_done = start, backward_done = start;
  auto share = [&](int s) {
    const std::int64_t b0 = B * s / S, b1 = B * (s + 1) / S;
    const ImageClassifier& m = s == 0 ? model_ : *replicas_[static_cast<std::size_t>(s - 1)];
    {
      ArenaScope scope(arenas_[static_cast<std::size_t>(s)].get());
      Rng own(seeds[static_cast<std::size_t>(s)]);
      const Var x(S == 1 ? images : images.slice(0, b0, b1));
      const std::vector<std::int32_t> y(labels.begin() + b0, labels.begin() + b1);
      const ClassifierOutput out = m.forward_train(x, S == 1 ? rng : own, precision);
      const RamLoss l = ram_loss(out, y, reinforce_weight);
      ce[static_cast<std::size_t>(s)] = l.classification.value().item();
      Var total =
          S == 1 ? l.total : scale(l.total, static_cast<double>(b1 - b0) / static_cast<double>(B));
      if (s == 0) forward_done = Clock::now();
      Tape::current().backward(total);
      if (s == 0) backward_done = Clock::now();
    }
    arenas_[static_cast<std::size_t>(s)]->reset();
  };
  auto guarded = [&](int s) {
    try {
      share(s);
    } catch (...) {
      errors[static_cast<std::size_t>(s)] = std::current_exception();
      Tape::current().clear();  // what the failed pass recorded on this thread
      arenas_[static_cast<std::size_t>(s)]->reset();
    }
  };
  if (S == 1) {
    share(0);  // on the calling thread: its errors leave as they do from any pass
  } else {
#pragma omp parallel num_threads(S)
    {
      // Inside another parallel region the team may be smaller than asked: loop.
      for (int s = omp_get_thread_num(); s < S; s += omp_get_num_threads()) guarded(s);
    }
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
    // The model's gradients (share 0's) plus the replicas', element by element in share order.
    const auto n = static_cast<std::int64_t>(params_.size());
#pragma omp parallel for schedule(dynamic) num_threads(S)
    for (std::int64_t i = 0; i < n; ++i) {
      const Var& p = params_[static_cast<std::size_t>(i)];
      Tensor& g = p.grad_buffer();
      for (int s = 1; s < S; ++s) {
        const Tensor& rg = replica_params_[static_cast<std::size_t>(s - 1)]
                                          [static_cast<std::size_t>(i)].grad_buffer();
        dispatch(g.dtype(), [&]<typename T>() {
          kernels::accumulate<T>(rg.data<T>(), g.data<T>(), g.numel());
        });
      }
    }
  }
  const auto done = Clock::now();
  Step step;
  for (int s = 0; s < S; ++s) {
    const std::int64_t b0 = B * s / S, b1 = B * (s + 1) / S;
    step.classification += ce[static_cast<std::size_t>(s)] * static_cast<double>(b1 - b0) /
                           static_cast<double>(B);
  }
  step.forward_seconds = seconds(start, forward_done);
  step.backward_seconds = seconds(forward_done, S == 1 ? backward_done : done);
  return step;
}

}  // namespace heed
