#pragma once
// The output directory of a training run (docs/TRAINING.md#the-output-directory): locked for
// the run, resumed when it holds a training state, cleared of what an earlier run left when
// that run saved no step, and refused when it holds anything heed did not write. Weights
// written before the first training state carry a marker, so that such weights are known as
// the run's own (a fresh run may remove them), not a user's (which it refuses to overwrite).
#include <string>

#include "heed/base/dir_lock.h"
#include "heed/config/train_config.h"

namespace heed {

struct PreparedDirectory {
  DirLock lock;            // held until the run ends
  bool resume = false;     // holds a training state made with the same data and model sections
  bool restarted = false;  // removed the leftovers of a run that saved no step
};

// Creates and locks config.output and decides between resuming and starting afresh.
// heed::Error for a directory that holds something else, or a training state of a run whose
// data or model section differs from config's.
PreparedDirectory prepare_run_directory(const TrainConfig& config);

// Before the first weights of a run that has no training state in dir yet: writes the marker
// (atomically) that lets the next run remove them. clear_unsaved_marker once the state is saved.
void mark_unsaved(const std::string& dir);
void clear_unsaved_marker(const std::string& dir);

}  // namespace heed
