#pragma once
// Trainer: the training loop behind `heed train` (docs/TRAINING.md). It prepares the model
// directory (tokenisers, vocabularies, resolved config), builds the model and optimizer,
// and runs teacher-forced cross-entropy updates over token-budget batches, validating on
// the dev set, keeping best/last weights and step checkpoints, and saving a training state
// from which a later run resumes bit for bit. One arena, reset per batch, holds every
// activation; parameters, gradients and optimizer state live on the heap.
#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>

#include "heed/models/seq2seq.h"
#include "heed/config/train_config.h"

namespace heed {
namespace dist {
class World;
}

enum class TrainOutcome {
  finished,       // max_steps or max_epochs reached
  early_stopped,  // no dev improvement for training.early_stopping validations
  interrupted,    // stop requested (SIGINT/SIGTERM); the state was saved
};

struct TrainResult {
  TrainOutcome outcome = TrainOutcome::finished;
  std::int64_t step = 0;
  bool has_best = false;
  double best_metric = 0.0;  // training.metric's best dev value
  std::int64_t best_step = 0;
};

// What a progress callback sees after each training step (TrainerOptions::on_step).
struct TrainProgress {
  std::int64_t step = 0;         // steps done, this one included
  std::int64_t total_steps = 0;  // the run's planned steps (max_steps / max_epochs); 0 = unknown
  std::int64_t epoch = 0;        // 0-based epoch of this step's batch
  double loss = 0.0;             // this step's training loss per target token
  double lr = 0.0;               // the learning rate this step used
  double seconds = 0.0;          // wall time of the run so far (resumed runs included)
  bool validated = false;        // the dev set was scored after this step
  double dev_metric = 0.0;       // its value of training.metric, when validated
  bool new_best = false;         // and it was the best so far
};

using ModelFactory = std::function<std::unique_ptr<Seq2Seq>(const ModelConfig&, Rng&, DType)>;

struct TrainerOptions {
  std::ostream* console = nullptr;  // progress and messages; nullptr = std::cerr
  bool tty = false;                 // redraw the progress line in place
  ModelFactory factory;             // empty = build_model (make_model)
  // The ranks of a data-parallel run (`mpirun -np N heed train`, docs/DISTRIBUTED.md):
  // every rank calls train() with the same config; rank 0 prepares the directory, validates,
  // logs and saves. nullptr or a world of one rank: this process trains alone.
  const dist::World* world = nullptr;
  // Called on rank 0 after every step (and its validation, if any), from the training thread.
  std::function<void(const TrainProgress&)> on_step;
  // A stop token: once it reads true, the run saves its state and returns `interrupted`, as
  // on SIGINT (request_stop). nullptr = only request_stop stops it.
  const std::atomic<bool>* stop = nullptr;
};

// What `heed train` and heed::Trainer check before anything is read or written: the model
// section against its kind and the machine's memory (the vocabulary sizes, known only from
// the data, count as small). heed::Error naming the key otherwise.
void check_before_training(const TrainConfig& config);

// Trains as config says; resumes when config.output holds a training state. heed::Error
// for bad data, a directory that holds something else, or a resume with a changed model
// or data section.
TrainResult train(const TrainConfig& config, const TrainerOptions& options = {});

// Asks a running train() to save its state and return (async-signal-safe); `heed train`
// makes SIGINT and SIGTERM call it (base/stop_signals.h).
void request_stop();
bool stop_requested();
void clear_stop_request();

}  // namespace heed
