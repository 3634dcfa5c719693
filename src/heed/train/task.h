#pragma once
// TrainingTask: what one family of models brings to the training loop (train/trainer.cpp):
// its data and batches, the forward and backward pass of one batch with its loss, the dev
// metric with its log text, and what the training state keeps of it. The loop drives every
// task alike, so a new family is a new task, one file with its entry in
// train/task_registry.cpp (docs/ARCHITECTURE.md#one-batch-through-training).
//
// The loop calls, in this order: load_data, build_model (the model section's sizes from the
// data, checked, the model made from the run's generator), module, save_files on a fresh
// run, restore_state on a resumed one; then per step set_epoch, begin_step and
// forward_backward (skip_share on a rank that holds none of the batch); dev_metric at each
// validation (rank 0 only); save_state at each save.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "heed/base/random.h"
#include "heed/config/train_config.h"
#include "heed/data/batch.h"
#include "heed/data/corpus.h"
#include "heed/nn/module.h"
#include "heed/tensor/safetensors.h"
#include "heed/tensor/arena.h"
#include "heed/train/trainer.h"
#include "heed/train/training_state.h"

namespace heed {

class DataParallel;

// What a task is made with; the loop owns everything referred to.
struct TaskContext {
  TrainConfig& config;    // the model section's data-dependent sizes are set by build_model
  const std::string& dir;  // the output directory
  // Resumed, or a rank other than 0: tokenisers and vocabularies are read from dir, not made.
  bool reuse_directory = false;
  bool distributed = false;  // data-parallel over two or more ranks
  Rng& rng;                  // initialisation, then dropout and sampling
  const ModelFactory& factory;  // TrainerOptions::factory, for the encoder–decoder tasks
};

// The part of a global batch this process trains on.
struct BatchShare {
  // The whole batch's target tokens, by which a share's loss is scaled so that the sum over
  // the ranks is the gradient of the whole batch's mean; 0: this is the whole batch.
  double batch_tokens = 0.0;
  // Data-parallel: the ranks, for what the task must see of the whole batch.
  const DataParallel* parallel = nullptr;
};

// The dev set's value of training.metric (rank 0 computes it).
struct DevMetricResult {
  double value = 0.0;
  nlohmann::json fields;  // the task's entries of the validation's history line
  std::string shown;      // its log text: "loss 1.2345, ppl 3.44, BLEU 12.34"
};

class TrainingTask {
 public:
  explicit TrainingTask(const TaskContext& context) : context_(context) {}
  virtual ~TrainingTask() = default;
  TrainingTask(const TrainingTask&) = delete;
  TrainingTask& operator=(const TrainingTask&) = delete;

  // Reads the training and the dev data. heed::Error names the file and what is wrong.
  virtual void load_data() = 0;
  // Sets the model section's sizes that come from the data, checks it (validate_model_config)
  // and the training options the family reads, and builds the model.
  virtual void build_model() = 0;
  // The model that trains: what is saved, loaded and counted.
  virtual Module& module() = 0;
  // A fresh run, once every check passed: the files besides weights it leaves (vocabularies).
  virtual void save_files() const = 0;
  // The data in the log's first line: "<n> training images of 28x28, 10 classes".
  virtual std::string describe_data() const = 0;

  // The training entries the batch sampler draws from, and the dev set planned in batches
  // (empty: no dev set).
  const Corpus& corpus() const { return corpus_; }
  bool has_dev() const { return !dev_plan_.empty(); }

  // Before each batch is drawn: the epoch (from 0) it belongs to.
  virtual void set_epoch(std::int64_t /*epoch*/) {}
  // Before the forward pass of step (from 1), with the gradients zeroed.
  virtual void begin_step(std::int64_t /*step*/) {}
  // Forward and backward of batch (this rank's share of one), the gradients accumulated
  // into the module's parameters; returns the mean target-token loss of batch.
  virtual double forward_backward(const Batch& batch, const BatchShare& share) = 0;
  // Data-parallel: this rank holds none of the batch; it still joins what forward_backward
  // would have called of share.parallel.
  virtual void skip_share(const BatchShare& /*share*/) {}
  // The dev set's value of training.metric, the model left training.
  virtual DevMetricResult dev_metric() = 0;

  // Entries the task adds to every weights file's metadata (best, last, step checkpoints):
  // what a reader of the weights needs beyond the config, e.g. the memory network's hop mode.
  virtual void add_weights_metadata(Metadata& /*metadata*/) const {}

  // The learning rate's phase before the next update: the schedule counts updates from the
  // one after `origin` (a phase of the task's own ended at that update), and `fixed`, when
  // set, replaces the schedule meanwhile. The memory network's linear start has its own rate
  // and restarts the schedule after it (training.linear_start_lr); other tasks: one schedule.
  struct LrPhase {
    std::int64_t origin = 0;
    std::optional<double> fixed;
  };
  virtual LrPhase lr_phase() const { return {}; }

  // What the task keeps in the training state, and takes back on resume.
  virtual void save_state(TrainingState& /*state*/) const {}
  virtual void restore_state(const TrainingState& /*state*/) {}

 protected:
  // The dev set in batches of the training budget, in corpus order.
  void plan_dev_batches();

  TaskContext context_;
  const TrainingConfig& training() const { return context_.config.training; }
  Corpus corpus_, dev_corpus_;
  std::vector<std::vector<std::size_t>> dev_plan_;
  Arena arena_;  // every activation of a batch, reset after it
};

// A family's entry in the list of train/task_registry.cpp (each task file defines its own).
struct TrainingTaskSpec {
  const char* family;                 // "sequence to sequence", for messages
  bool (*trains)(ModelKind kind);     // the model kinds of the family (models/model_registry.h)
  std::unique_ptr<TrainingTask> (*make)(const TaskContext& context);
};

// The entry of the one family that trains kind; heed::Error when none does (or two do).
const TrainingTaskSpec& training_task_spec(ModelKind kind);
// Its task, made with context (for context.config.model.kind).
std::unique_ptr<TrainingTask> make_training_task(const TaskContext& context);

// Sets field (model.<key>, a vocabulary's size) to size, unless the config gave another size.
void set_vocabulary_size(std::int64_t& field, std::size_t size, const char* key);

// printf's rendering of one number ("%.2f"), for log text.
std::string format_number(const char* format, double value);

}  // namespace heed
