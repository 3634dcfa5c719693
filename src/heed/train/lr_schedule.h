#pragma once
// Learning-rate schedules for the training loop:
//   constant   lr
//   plateau    lr * decay_factor^k, k = how many times the dev metric stalled for more than
//              `patience` validations in a row (PyTorch's ReduceLROnPlateau, threshold 0),
//              never below min_lr
//   step       lr * decay_factor^floor((s - 1) / decay_steps), never below min_lr (the
//              memory network's halving every 15 epochs, Sukhbaatar et al. 2015)
//   warmup     lr * s / warmup_steps for s <= warmup_steps, then
//              inverse_sqrt: lr * sqrt(warmup_steps / s)
//              linear:       lr * (max_steps - s) / (max_steps - warmup_steps), down to 0;
//                            with a time budget, at most lr * (1 - elapsed / max_seconds):
//                            the rate reaches 0 when training stops, however fast the machine
//              none:         lr
// s is the 1-based number of the update about to be made. The state (plateau counters)
// round-trips through a text line so that a resumed run continues exactly.
#include <cstdint>
#include <string>

#include "heed/config/training_choices.h"

namespace heed {

struct TrainingConfig;

struct LrScheduleOptions {
  ScheduleKind kind = ScheduleKind::constant;
  double lr = 1e-3;
  double decay_factor = 0.5;
  std::int64_t patience = 2;
  double min_lr = 0.0;
  std::int64_t warmup_steps = 1000;
  std::int64_t decay_steps = 10000;    // step
  DecayKind decay = DecayKind::inverse_sqrt;
  std::int64_t max_steps = 0;          // linear decay needs it or max_seconds
  double max_seconds = 0;              // linear decay to 0 at this training time
  bool higher_is_better = false;       // plateau: the validation metric's direction

  static LrScheduleOptions from(const TrainingConfig& config);
};

class LrSchedule {
 public:
  explicit LrSchedule(LrScheduleOptions options);

  // The learning rate of update number step (1-based), elapsed_seconds into training.
  double lr(std::int64_t step, double elapsed_seconds = 0) const;
  // Feeds a validation's dev metric (plateau counts stalls; the others ignore it). Returns true
  // when the learning rate was just reduced.
  bool on_validation(double dev_metric);
  // How many reductions so far (plateau).
  std::int64_t reductions() const { return reductions_; }

  // Exact text form of the mutable state (hex floats) and its inverse.
  std::string state() const;
  void set_state(const std::string& state);

 private:
  LrScheduleOptions o_;
  double scale_ = 1.0;
  bool has_best_ = false;
  double best_ = 0.0;
  std::int64_t bad_ = 0;
  std::int64_t reductions_ = 0;
};

}  // namespace heed
