#pragma once
// What `heed train` records at each validation, read back for charts: DIR/history.jsonl, one
// JSON object per line (store/model_dir.h), with "step", "dev_loss", and when the run recorded
// them "train_loss", "lr", "seconds" (since training began) and the dev metric ("bleu", "wer",
// "error"). `heed plot --history` and `heed serve --watch` draw them (viz/history_charts.h).
#include <cstdint>
#include <string>
#include <vector>

namespace heed::viz {

struct HistoryPoint {
  std::int64_t step = 0;
  double seconds, train_loss, dev_loss, lr, metric;  // NaN where the line has no such value
};

struct TrainingHistory {
  std::string dir;     // the model directory, as given (the run's name in legends)
  std::string metric;  // "bleu", "wer", "error", or "" (the run validated on loss alone)
  std::vector<HistoryPoint> points;  // in file order
};

// The history of the model directory dir. heed::Error naming the file (and line) when dir is
// not a directory, holds no history.jsonl ("no validation yet, or not a directory heed train
// wrote"), the file is empty, or a line is not a complete JSON object with an integer "step"
// and a numeric "dev_loss" (a truncated line, for one).
TrainingHistory read_training_history(const std::string& dir);

// The path of dir's history file.
std::string history_path(const std::string& dir);

}  // namespace heed::viz
