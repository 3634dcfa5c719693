#pragma once
// Trainer: the training loop behind `heed train` (docs/TRAINING.md). It prepares the model
// directory (tokenisers, vocabularies, resolved config), builds the model and optimizer,
// and runs teacher-forced cross-entropy updates over token-budget batches, validating on
// the dev set, keeping best/last weights and step checkpoints, and saving a training state
// from which a later run resumes bit for bit. One arena, reset per batch, holds every
// activation; parameters, gradients and optimizer state live on the heap.
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
  double best_score = 0.0;
  std::int64_t best_step = 0;
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
};

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
