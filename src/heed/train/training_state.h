#pragma once
// TrainingState: what a run needs beyond the weights and the optimizer to continue exactly
// where it stopped: the step, the batch sampler's position, the dropout generator, the
// learning-rate schedule, the REINFORCE baseline of hard attention, the best dev metric so far, the early-stopping counter, the step
// checkpoints on disk and the validation history. Saved with the weights and optimizer
// state in one safetensors file (the state goes in its metadata), written atomically.
#include <cstdint>
#include <string>
#include <vector>

#include "heed/data/batch_sampler.h"
#include "heed/nn/module.h"
#include "heed/train/optimizer.h"

namespace heed {

struct TrainingState {
  std::int64_t step = 0;           // updates made
  BatchPosition position;          // where the batch sampler stands
  std::string rng_state;           // the model's generator (dropout)
  std::string schedule_state;      // LrSchedule::state()
  bool has_best = false;
  double best_metric = 0.0;  // training.metric's best dev value
  std::int64_t best_step = 0;
  std::int64_t bad_validations = 0;  // in a row, for early stopping
  std::int64_t target_tokens = 0;    // target tokens trained on
  double train_seconds = 0.0;        // time spent in earlier sessions
  std::vector<std::int64_t> checkpoints;  // steps of the kept step checkpoints, oldest first
  std::vector<std::string> history;       // one JSON object per validation (history.jsonl)
  std::string stop_reason;                // "" while training may go on
  // The training loss since the last validation (token-weighted sum and tokens), so that a
  // resumed run reports the same train_loss as an uninterrupted one (0 in older states).
  double window_loss = 0.0;
  std::int64_t window_tokens = 0;
  // Read back: false for a state written before the window (and 1-based history epochs)
  // were saved; its history's "epoch" values count from 0.
  bool has_window = true;
  // Hard attention: the REINFORCE baseline (train/reinforce.h), so a resumed run continues it.
  bool has_baseline = false;
  double baseline = 0.0;
  // The memory network (train/question_answering_task.cpp): whether linear start is still on,
  // the lowest dev loss so far and the validations since it fell.
  bool has_linear_start = false;
  bool linear_start = false;
  double lowest_dev_loss = 0.0;
  std::int64_t stale_validations = 0;
  std::int64_t linear_start_ended_at = -1;  // the update after which it ended; -1: not yet
};

// Writes module weights + optimizer state + the state (as metadata "heed.*") to path.
void save_training_state(const std::string& path, const Module& module,
                         const Optimizer& optimizer, const TrainingState& state);
// Restores weights and optimizer state; returns the state. heed::Error names the file.
TrainingState load_training_state(const std::string& path, Module& module, Optimizer& optimizer);
// Only the state (no model needed): for `heed info`.
TrainingState read_training_state(const std::string& path);

}  // namespace heed
