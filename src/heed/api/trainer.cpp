// The public heed::Trainer (include/heed/trainer.h) over train/: the config parsed and checked
// once, as `heed train` checks it, then train() with the progress callback and the stop token
// passed to the training loop (TrainerOptions::on_step, TrainerOptions::stop).
#include "heed/trainer.h"

#include <atomic>
#include <ostream>
#include <utility>

#include "heed/config/train_config.h"
#include "heed/train/trainer.h"

namespace heed {

struct Trainer::Impl {
  TrainConfig config;
  std::ostream* log = nullptr;
};


Trainer::Trainer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Trainer::Trainer(Trainer&&) noexcept = default;
Trainer& Trainer::operator=(Trainer&&) noexcept = default;
Trainer::~Trainer() = default;

Trainer Trainer::from_file(const std::string& path, const std::vector<std::string>& overrides) {
  auto impl = std::make_unique<Impl>();
  impl->config = load_train_config(path, overrides);
  check_before_training(impl->config);
  return Trainer(std::move(impl));
}

Trainer Trainer::from_yaml(const std::string& yaml, const std::vector<std::string>& overrides,
                           const std::string& source) {
  auto impl = std::make_unique<Impl>();
  impl->config = parse_train_config(yaml, source, overrides);
  check_before_training(impl->config);
  return Trainer(std::move(impl));
}

std::string Trainer::config_yaml() const { return to_yaml(impl_->config); }

const std::string& Trainer::model_dir() const { return impl_->config.output; }

void Trainer::set_log(std::ostream* log) { impl_->log = log; }

Trainer::Result Trainer::train(const std::function<void(const Progress&)>& on_progress,
                               std::stop_token stop) {
  std::atomic<bool> stop_flag{false};
  std::stop_callback on_stop(stop, [&] { stop_flag.store(true); });
  std::ostream discard(nullptr);
  TrainerOptions options;
  options.console = impl_->log ? impl_->log : &discard;
  options.stop = &stop_flag;
  if (on_progress)
    options.on_step = [&](const TrainProgress& p) {
      Progress out;
      out.step = p.step;
      out.total_steps = p.total_steps;
      out.epoch = p.epoch;
      out.loss = p.loss;
      out.learning_rate = p.lr;
      out.seconds = p.seconds;
      out.validated = p.validated;
      out.dev_score = p.dev_metric;
      out.new_best = p.new_best;
      on_progress(out);
    };
  const TrainResult r = heed::train(impl_->config, options);
  Result result;
  result.outcome = r.outcome == TrainOutcome::finished        ? Outcome::finished
                   : r.outcome == TrainOutcome::early_stopped ? Outcome::early_stopped
                                                              : Outcome::stopped;
  result.step = r.step;
  result.has_best = r.has_best;
  result.best_score = r.best_metric;
  result.best_step = r.best_step;
  result.model_dir = impl_->config.output;
  return result;
}

}  // namespace heed
