// The training loop: steps, validation, checkpoints, resume, the stop signal and the time
// budget, the same for every family of models. What a family brings (its data, batches,
// loss and dev metric) is its TrainingTask (train/task.h), chosen from model.kind by
// make_training_task; what must agree across the ranks of a data-parallel run goes through
// DataParallel (train/data_parallel.h); the output directory is prepared by
// train/run_directory.h.
#include "heed/train/trainer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/data/batch_sampler.h"
#include "heed/kernels/bf16_products.h"
#include "heed/kernels/gemm.h"
#include "heed/models/model_registry.h"
#include "heed/store/checkpoint.h"
#include "heed/store/model_dir.h"
#include "heed/train/adam.h"
#include "heed/train/clip.h"
#include "heed/train/data_parallel.h"
#include "heed/train/lr_schedule.h"
#include "heed/train/progress.h"
#include "heed/train/run_directory.h"
#include "heed/train/sgd.h"
#include "heed/train/task.h"
#include "heed/train/training_state.h"

namespace fs = std::filesystem;

namespace heed {

namespace {

std::atomic<bool> g_stop{false};  // set by the signal thread, read by the loop

std::unique_ptr<Optimizer> make_optimizer(const TrainingConfig& t, std::vector<Var> params) {
  if (t.optimizer == OptimizerKind::sgd) {
    SgdOptions o;
    o.lr = t.lr;
    o.momentum = t.momentum;
    o.weight_decay = t.weight_decay;
    o.nesterov = t.nesterov;
    return std::make_unique<Sgd>(std::move(params), o);
  }
  AdamOptions o;
  o.lr = t.lr;
  o.beta1 = t.beta1;
  o.beta2 = t.beta2;
  o.eps = t.eps;
  o.weight_decay = t.weight_decay;
  if (t.optimizer == OptimizerKind::adamw) return std::make_unique<AdamW>(std::move(params), o);
  return std::make_unique<Adam>(std::move(params), o);
}

std::string history_text(const std::vector<std::string>& history) {
  std::string text;
  for (const auto& h : history) text += h + "\n";
  return text;
}

class TrainingLoop {
 public:
  TrainingLoop(const TrainConfig& config, const TrainerOptions& options)
      : c_(config), t_(c_.training), dir_(config.output), parallel_(options.world),
        leader_(parallel_.leader()),
        console_(leader_ ? (options.console ? *options.console : std::cerr) : null_console_),
        tty_(options.tty && leader_), factory_(options.factory), on_step_(options.on_step),
        options_stop_(options.stop), rng_(config.training.seed),
        schedule_(LrScheduleOptions::from(config.training)) {}

  TrainResult run();

 private:
  TrainResult train_steps();  // run() after the directory and the model are set up
  // The task, its data and model, the optimizer and the sampler; on resume the state.
  void set_up();
  // The update of one global batch; returns its mean target-token loss (over every rank).
  double train_step(const Batch& batch);
  void validate(Progress& progress, double train_loss);
  void save(bool step_checkpoint);
  void mark_unsaved();
  Metadata weights_metadata() const;
  double window_mean() const {
    return window_tokens_ ? window_loss_ / static_cast<double>(window_tokens_) : 0.0;
  }
  double seconds() const {
    return state_.train_seconds +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - session_start_).count();
  }

  TrainConfig c_;  // the model section's sizes are set from the data (TrainingTask::build_model)
  const TrainingConfig& t_;
  std::string dir_;
  DataParallel parallel_;
  bool leader_;                   // rank 0, or the only process: writes the directory
  std::ostream null_console_{nullptr};  // the console of the other ranks: discards
  std::ostream& console_;
  bool tty_;
  ModelFactory factory_;
  std::function<void(const TrainProgress&)> on_step_;  // TrainerOptions::on_step
  const std::atomic<bool>* options_stop_;             // TrainerOptions::stop
  double last_metric_ = 0.0;                           // of the latest validation
  bool resume_ = false;
  bool follower_ = false;  // a rank other than 0: reads what rank 0 wrote into the directory
  bool restarted_ = false;  // removed the leftovers of a run that saved no step
  DirLock lock_;  // held from prepare_run_directory to the end of the run

  Rng rng_;  // initialisation, then dropout and sampling (the task's model draws from it)
  std::unique_ptr<TrainingTask> task_;
  std::vector<Var> params_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<BatchSampler> sampler_;
  LrSchedule schedule_;
  TrainingState state_;
  std::chrono::steady_clock::time_point session_start_ = std::chrono::steady_clock::now();
  std::int64_t last_saved_step_ = -1;
  bool marked_unsaved_ = false;  // wrote the unsaved marker, to be removed after the first save

  std::int64_t epoch_ = 0;  // of the batch last trained on, from 0

  // The learning rate of the next update: the schedule's, in the task's phase (task.h).
  double next_lr() const {
    const TrainingTask::LrPhase phase = task_->lr_phase();
    if (phase.fixed) return *phase.fixed;
    return schedule_.lr(state_.step + 1 - phase.origin, clock_);
  }
  // The training clock the schedule reads: seconds() at the latest check before a step, rank
  // 0's on every rank of a data-parallel run (DataParallel::agree).
  double clock_ = 0.0;
  double window_loss_ = 0.0;  // token-weighted training loss since the last validation
  std::int64_t window_tokens_ = 0;
};

double TrainingLoop::train_step(const Batch& batch) {
  optimizer_->zero_grad();
  task_->begin_step(state_.step + 1);
  double loss = 0.0;
  {
    // bf16 products round each weight once in the step: it holds still until the update.
    std::optional<kernels::Bf16WeightScope> weights;
    if (t_.precision == kernels::MatmulPrecision::bf16) weights.emplace(weight_regions(params_));
    loss = parallel_.step(batch, task_->corpus(), *task_);
  }
  HEED_CHECK(std::isfinite(loss), "step ", state_.step + 1, ": the training loss is ", loss,
             "; lower training.lr or set training.clip_norm");
  if (t_.clip_norm > 0) {
    if (t_.clip_scope == ClipScope::tensor) clip_grad_norm_each(params_, t_.clip_norm);
    else clip_grad_norm(params_, t_.clip_norm);
  }
  optimizer_->step();
  return loss;
}

void TrainingLoop::validate(Progress& progress, double train_loss) {
  // Rank 0 measures the dev set; every rank takes its metric, so that early stopping and the
  // learning rate schedule stay the same on all of them.
  DevMetricResult dev;
  if (leader_) dev = task_->dev_metric();
  double dev_metric = dev.value;
  parallel_.broadcast(dev_metric);
  last_metric_ = dev_metric;
  const bool higher = metric_higher_is_better(t_.metric);
  const bool better = !state_.has_best ||
                      (higher ? dev_metric > state_.best_metric : dev_metric < state_.best_metric);
  if (better) {
    state_.has_best = true;
    state_.best_metric = dev_metric;
    state_.best_step = state_.step;
    state_.bad_validations = 0;
    if (leader_) {
      mark_unsaved();
      save_module(task_->module(), path_in(dir_, model_files::kBest), weights_metadata());
    }
  } else {
    ++state_.bad_validations;
  }
  const bool reduced = schedule_.on_validation(dev_metric);
  if (!leader_) return;
  nlohmann::json entry = std::move(dev.fields);
  entry["step"] = state_.step;
  entry["epoch"] = epoch_ + 1;  // counted from 1, like the log and heed info
  entry["train_loss"] = train_loss;
  entry["lr"] = next_lr();
  entry["best"] = better;
  entry["seconds"] = seconds();
  state_.history.push_back(entry.dump());
  // Rewritten whole, so that a failed write leaves the previous file.
  write_file_atomically(path_in(dir_, model_files::kHistory), history_text(state_.history));
  std::string line = "validation at step " + std::to_string(state_.step) + ": " + dev.shown;
  line += better ? " (new best)"
                 : " (best " +
                       format_number(t_.metric == DevMetric::loss ? "%.4f" : "%.2f",
                                     state_.best_metric) +
                       " at step " + std::to_string(state_.best_step) + ")";
  if (reduced)
    line += "; learning rate reduced to " +
            format_number("%.3g", next_lr());
  progress.message(line);
}

Metadata TrainingLoop::weights_metadata() const {
  Metadata m = {{"format", "pt"}, {"heed.step", std::to_string(state_.step)},
                {"heed.model", std::string(enum_name(c_.model.kind))}};
  task_->add_weights_metadata(m);
  return m;
}

void TrainingLoop::mark_unsaved() {
  if (resume_ || last_saved_step_ >= 0 || marked_unsaved_) return;
  heed::mark_unsaved(dir_);
  marked_unsaved_ = true;
}

void TrainingLoop::save(bool step_checkpoint) {
  parallel_.check_same_parameters(params_, "at a save");
  if (!leader_) {
    last_saved_step_ = state_.step;
    return;
  }
  const Module& module = task_->module();
  const Metadata meta = weights_metadata();
  mark_unsaved();
  if (step_checkpoint && t_.keep_checkpoints > 0 &&
      (state_.checkpoints.empty() || state_.checkpoints.back() != state_.step)) {
    const fs::path checkpoints = fs::path(dir_) / model_files::kCheckpoints;
    std::error_code ec;
    fs::create_directories(checkpoints, ec);
    HEED_CHECK(!ec, checkpoints.string(), ": cannot create the directory (", ec.message(), ")");
    save_module(module, step_checkpoint_path(dir_, state_.step), meta);
    state_.checkpoints.push_back(state_.step);
    while (static_cast<std::int64_t>(state_.checkpoints.size()) > t_.keep_checkpoints) {
      std::error_code ec;
      fs::remove(step_checkpoint_path(dir_, state_.checkpoints.front()), ec);
      state_.checkpoints.erase(state_.checkpoints.begin());
    }
  }
  save_module(module, path_in(dir_, model_files::kLast), meta);
  if (!task_->has_dev()) save_module(module, path_in(dir_, model_files::kBest), meta);
  state_.position = sampler_->position();
  state_.rng_state = rng_.state();
  state_.schedule_state = schedule_.state();
  state_.window_loss = window_loss_;
  state_.window_tokens = window_tokens_;
  task_->save_state(state_);
  TrainingState s = state_;
  s.train_seconds = seconds();
  save_training_state(path_in(dir_, model_files::kState), module, *optimizer_, s);
  last_saved_step_ = state_.step;
  if (marked_unsaved_) {
    clear_unsaved_marker(dir_);
    marked_unsaved_ = false;
  }
}

void TrainingLoop::set_up() {
  task_ = make_training_task(
      {c_, dir_, resume_ || follower_, parallel_.distributed(), rng_, factory_});
  task_->load_data();
  task_->build_model();
  Module& module = task_->module();
  module.train();
  params_ = module.parameters();
  {
    ArenaScope heap(nullptr);  // optimizer state must outlive every batch
    optimizer_ = make_optimizer(t_, params_);
  }
  BatchOptions bo;
  bo.max_tokens = static_cast<std::size_t>(t_.max_tokens);
  bo.max_sentences = static_cast<std::size_t>(t_.max_sentences);
  bo.pool_size = static_cast<std::size_t>(t_.sort_pool);
  bo.seed = t_.seed;
  sampler_ = std::make_unique<BatchSampler>(task_->corpus(), bo);
  if (!resume_ && leader_) task_->save_files();  // every check has passed: now the directory is written

  if (resume_) {
    state_ = load_training_state(path_in(dir_, model_files::kState), module, *optimizer_);
    sampler_->set_position(state_.position);
    rng_.set_state(state_.rng_state);
    schedule_.set_state(state_.schedule_state);
    window_loss_ = state_.window_loss;  // the train_loss of the next validation goes on
    window_tokens_ = state_.window_tokens;
    if (!state_.has_window) {  // a state from before: its history counted epochs from 0
      for (std::string& h : state_.history) {
        nlohmann::json entry = nlohmann::json::parse(h, nullptr, false);
        if (entry.is_object() && entry.contains("epoch") && entry["epoch"].is_number_integer())
          entry["epoch"] = entry["epoch"].get<std::int64_t>() + 1;
        if (!entry.is_discarded()) h = entry.dump();
      }
      state_.has_window = true;
    }
    task_->restore_state(state_);
    if (!leader_) return;
    write_file_atomically(path_in(dir_, model_files::kHistory), history_text(state_.history));
  }
  if (leader_) write_file_atomically(path_in(dir_, model_files::kConfig), to_yaml(c_));
}

TrainResult TrainingLoop::run() {
  // training.threads for this run only: a program that trains and then translates in the same
  // thread (the C++ API) gets its own thread count back.
  const kernels::ScopedNumThreads threads(t_.threads > 0 ? static_cast<int>(t_.threads)
                                                         : kernels::num_threads());
  // Rank 0 prepares the directory (lock, tokenizers, vocabularies, config) and tells the
  // others whether it could; they then read what it wrote, as a resumed run would.
  parallel_.lead_then_follow(
      [&] {
        PreparedDirectory prepared = prepare_run_directory(c_);
        lock_ = std::move(prepared.lock);
        resume_ = prepared.resume;
        restarted_ = prepared.restarted;
        set_up();
      },
      [&] {
        follower_ = true;
        resume_ = fs::exists(path_in(dir_, model_files::kState));
        set_up();
      });
  parallel_.start(params_, t_.allreduce_bucket_mb, rng_, t_.seed, state_.step);
  try {
    return train_steps();
  } catch (...) {
    parallel_.fail_alone();  // data-parallel: the other ranks would wait for this one for ever
  }
}

TrainResult TrainingLoop::train_steps() {
  parallel_.check_same_parameters(
      params_, resume_ ? "after loading the training state" : "after initialisation");
  clock_ = seconds();
  const ModelConfig& mc = c_.model;
  const std::string log_path = path_in(dir_, model_files::kLog);

  std::int64_t total = t_.max_steps;
  const auto epoch_steps =
      t_.max_epochs * static_cast<std::int64_t>(sampler_->batches_in_epoch());
  if (t_.max_epochs > 0 && (total == 0 || epoch_steps < total)) total = epoch_steps;
  ProgressOptions po;
  po.tty = tty_;
  po.log_every = t_.log_every;
  po.total_steps = total;
  if (t_.max_seconds > 0) po.seconds_left = std::max(0.0, t_.max_seconds - seconds());
  if (leader_) po.log_path = log_path;
  Progress progress(console_, po);
  progress.message(task_->describe_data() + "; " + std::string(enum_name(mc.kind)) +
                   " model with " + std::to_string(task_->module().num_parameters()) +
                   " parameters");
  if (restarted_)
    progress.message(dir_ + " held the files of an earlier run that saved no step; removed them "
                     "and started afresh");
  if (const std::string ranks = parallel_.describe_start(); !ranks.empty())
    progress.message(ranks);
  if (resume_)
    progress.message("resuming " + dir_ + " at step " + std::to_string(state_.step) + " (epoch " +
                     std::to_string(state_.position.epoch + 1) + ")");

  const std::int64_t save_every = t_.save_every > 0 ? t_.save_every : t_.validate_every;
  const bool has_dev = task_->has_dev();
  TrainOutcome outcome = TrainOutcome::finished;
  std::string reason;
  for (;;) {
    bool interrupted =
        stop_requested() || (options_stop_ && options_stop_->load(std::memory_order_relaxed));
    double now = seconds();
    bool out_of_time = t_.max_seconds > 0 && now >= t_.max_seconds;
    // Data-parallel: all ranks stop at the same step, and take rank 0's clock.
    parallel_.agree(interrupted, out_of_time, now);
    clock_ = now;
    if (interrupted) {
      outcome = TrainOutcome::interrupted;
      reason = "interrupted";
      break;
    }
    if (t_.max_steps > 0 && state_.step >= t_.max_steps) {
      reason = "reached max_steps " + std::to_string(t_.max_steps);
      break;
    }
    if (t_.max_epochs > 0 && sampler_->epoch() >= static_cast<std::uint64_t>(t_.max_epochs)) {
      reason = "reached max_epochs " + std::to_string(t_.max_epochs);
      break;
    }
    if (out_of_time) {
      reason = "reached max_seconds " + format_number("%g", t_.max_seconds);
      break;
    }
    if (has_dev && t_.early_stopping > 0 && state_.bad_validations >= t_.early_stopping) {
      outcome = TrainOutcome::early_stopped;
      reason = "early stopping: no improvement in " + std::to_string(t_.early_stopping) +
               " validations";
      break;
    }
    const std::int64_t epoch = static_cast<std::int64_t>(sampler_->epoch());
    epoch_ = epoch;
    task_->set_epoch(epoch);
    std::optional<Batch> batch = sampler_->next();
    if (!batch) {
      progress.message("epoch " + std::to_string(epoch + 1) + " done at step " +
                       std::to_string(state_.step));
      continue;
    }
    const double lr = next_lr();
    optimizer_->set_lr(lr);
    const double loss = train_step(*batch);
    ++state_.step;
    const auto tokens = static_cast<std::int64_t>(batch->tgt_tokens);
    state_.target_tokens += tokens;
    window_loss_ += loss * static_cast<double>(tokens);
    window_tokens_ += tokens;
    progress.step(state_.step, epoch, loss, tokens, lr);
    TrainProgress event;
    event.step = state_.step;
    event.total_steps = total;
    event.epoch = epoch;
    event.loss = loss;
    event.lr = lr;
    if (has_dev && state_.step % t_.validate_every == 0) {
      validate(progress, window_mean());
      window_loss_ = 0.0;
      window_tokens_ = 0;
      event.validated = true;
      event.dev_metric = last_metric_;
      event.new_best = state_.best_step == state_.step;
    }
    if (on_step_ && leader_) {
      event.seconds = seconds();
      on_step_(event);
    }
    if (state_.step % save_every == 0) save(true);
  }
  // A run that never validated still leaves a best model.
  if (has_dev && !state_.has_best && outcome != TrainOutcome::interrupted && state_.step > 0)
    validate(progress, window_mean());
  state_.stop_reason = outcome == TrainOutcome::interrupted ? "" : reason;
  if (state_.step > 0) save(false);  // also records the stop reason
  std::string after;
  if (outcome == TrainOutcome::interrupted)
    after = resume_ || last_saved_step_ >= 0 ? "; the training state is saved, run the same command to resume"
                                  : "; nothing was saved (no step was made), run the same command "
                                    "to start again";
  progress.message("stopped at step " + std::to_string(state_.step) + ": " + reason + after);
  if (const std::string waits = parallel_.describe_end(); !waits.empty()) progress.message(waits);
  TrainResult r;
  r.outcome = outcome;
  r.step = state_.step;
  r.has_best = state_.has_best;
  r.best_metric = state_.best_metric;
  r.best_step = state_.best_step;
  return r;
}

}  // namespace

void check_before_training(const TrainConfig& config) {
  ModelConfig mc = config.model;
  mc.src_vocab = std::max<std::int64_t>(mc.src_vocab, 5);
  mc.tgt_vocab = std::max<std::int64_t>(mc.tgt_vocab, 5);
  // The image size comes with the data: unset, the largest accepted stands in for it.
  if (mc.classifier.image_height == 0) mc.classifier.image_height = 4096;
  if (mc.classifier.image_width == 0) mc.classifier.image_width = 4096;
  // A speech model's frames have data.audio.mels bins (the task sets it).
  if (mc.listener.feature_dim == 0)
    mc.listener.feature_dim = config.data.audio.mels * config.data.audio.stack;
  validate_model_config(mc);
}

TrainResult train(const TrainConfig& config, const TrainerOptions& options) {
  TrainingLoop loop(config, options);
  return loop.run();
}

void request_stop() { g_stop.store(true); }
bool stop_requested() { return g_stop.load(); }
void clear_stop_request() { g_stop.store(false); }

}  // namespace heed
