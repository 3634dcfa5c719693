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
  return static_cast<int>(std::clamp<std::int64_t>(std::min<std::int64_t>(threads, images / 16), 1,
                                                   std::max(threads, 1)));
}

ClassifierShares::ClassifierShares(const ImageClassifier& model,
                                   std::function<std::unique_ptr<ImageClassifier>()> make)
    : model_(model), make_(std::move(make)), params_(model.parameters()) {}

void ClassifierShares::grow(int shares) {
  ArenaScope heap(nullptr);  // the replicas' parameters and gradients outlive the step
  while (static_cast<int>(replicas_.size()) < shares - 1) {
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
    r->set_compute_type(model_.compute_type());
    replicas_.push_back(std::move(r));
    replica_params_.push_back(mine);
  }
  while (static_cast<int>(arenas_.size()) < shares) arenas_.push_back(std::make_unique<Arena>());
}

double ClassifierShares::pass(const ImageClassifier& model, const Tensor& images,
                              std::span<const std::int32_t> labels, Rng& rng,
                              double reinforce_weight, double weight, Arena& arena,
                              double* forward_seconds) {
  double ce = 0;
  {
    ArenaScope scope(&arena);
    const auto start = Clock::now();
    const ClassifierOutput out = model.forward_train(Var(images), rng);
    const RamLoss l =
        ram_loss(out, std::vector<std::int32_t>(labels.begin(), labels.end()), reinforce_weight);
    ce = l.classification.value().item();
    Var total = weight == 1.0 ? l.total : scale(l.total, weight);
    if (forward_seconds) *forward_seconds = seconds(start, Clock::now());
    Tape::current().backward(total);
  }
  arena.reset();
  return ce;
}

void ClassifierShares::add_replica_gradients(int shares) {
  const auto n = static_cast<std::int64_t>(params_.size());
#pragma omp parallel for schedule(dynamic) num_threads(shares)
  for (std::int64_t i = 0; i < n; ++i) {
    Tensor& g = params_[static_cast<std::size_t>(i)].grad_buffer();
    for (int s = 1; s < shares; ++s) {
      const Tensor& rg =
          replica_params_[static_cast<std::size_t>(s - 1)][static_cast<std::size_t>(i)]
              .grad_buffer();
      dispatch(g.dtype(),
               [&]<typename T>() { kernels::accumulate<T>(rg.data<T>(), g.data<T>(), g.numel()); });
    }
  }
}

ClassifierShares::Step ClassifierShares::forward_backward(const Tensor& images,
                                                          std::span<const std::int32_t> labels,
                                                          Rng& rng,
                                                          double reinforce_weight) {
  const std::int64_t B = images.dim(0);
  HEED_CHECK(B >= 1 && static_cast<std::int64_t>(labels.size()) == B,
             "training step: ", labels.size(), " labels for ", B, " images");
  const int S = classifier_share_count(B, kernels::num_threads());
  Step step;
  const auto start = Clock::now();
  if (S == 1) {  // the plain pass, on the calling thread and the training generator
    step.classification = pass(model_, images, labels, rng, reinforce_weight, 1.0, arena(0),
                               &step.forward_seconds);
    step.backward_seconds = seconds(start, Clock::now()) - step.forward_seconds;
    return step;
  }
  grow(S);
  std::vector<std::uint64_t> seeds(static_cast<std::size_t>(S));
  for (auto& s : seeds) s = rng.next();
  for (int s = 1; s < S; ++s) replicas_[static_cast<std::size_t>(s - 1)]->zero_grad();
  std::vector<double> ce(static_cast<std::size_t>(S));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(S));
  auto share = [&](int s) {
    const auto i = static_cast<std::size_t>(s);
    const std::int64_t b0 = B * s / S, b1 = B * (s + 1) / S;
    try {
      Rng own(seeds[i]);
      ce[i] =
          pass(s == 0 ? model_ : *replicas_[i - 1], images.slice(0, b0, b1),
               labels.subspan(static_cast<std::size_t>(b0), static_cast<std::size_t>(b1 - b0)), own,
               reinforce_weight, static_cast<double>(b1 - b0) / static_cast<double>(B),
               arena(s), s == 0 ? &step.forward_seconds : nullptr);
    } catch (...) {
      errors[i] = std::current_exception();
      Tape::current().clear();  // what the failed pass recorded on this thread
      arena(s).reset();
    }
  };
#pragma omp parallel num_threads(S)
  {
    // Inside another parallel region the team may be smaller than asked: loop.
    for (int s = omp_get_thread_num(); s < S; s += omp_get_num_threads()) share(s);
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  add_replica_gradients(S);
  for (int s = 0; s < S; ++s)
    step.classification += ce[static_cast<std::size_t>(s)] *
                           static_cast<double>(B * (s + 1) / S - B * s / S) /
                           static_cast<double>(B);
  step.backward_seconds = seconds(start, Clock::now()) - step.forward_seconds;
  return step;
}

}  // namespace heed
