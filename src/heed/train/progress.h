#pragma once
// Progress: what a training run tells its user. On a terminal one status line is redrawn
// in place (at most 5 times a second); otherwise (a pipe, a log file, CI) a plain line is
// printed every log_every steps. Every plain line and every message is also appended to
// the run's log file (DIR/train.log); a line that cannot be written there (a full disk) is
// a heed::Error naming the file and the cause.
//   step 1200/5000 | epoch 3 | loss 2.3140 | lr 1.00e-03 | 14.2k tok/s | ETA 4m12s
#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace heed {

struct ProgressOptions {
  bool tty = false;               // redraw one line (a terminal) or print plain lines
  std::int64_t log_every = 100;   // plain lines every N steps
  std::int64_t total_steps = 0;   // for the ETA; 0 = unknown
  double seconds_left = 0;        // a time budget left when training starts; 0 = none
  std::string log_path;           // "" = no log file
};

class Progress {
 public:
  Progress(std::ostream& console, ProgressOptions options);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // After each update: the loss (mean over the batch's target tokens) and its token count.
  void step(std::int64_t step, std::int64_t epoch, double loss, std::int64_t target_tokens,
            double lr);
  // A line for the console and the log (validation results, notices).
  void message(const std::string& line);
  // Ends a redrawn line so that later output starts on a fresh one.
  void finish();

  // "1h02m", "4m12s", "9s"
  static std::string format_duration(double seconds);

 private:
  std::string status_line(std::int64_t step, std::int64_t epoch, double loss, double lr,
                          double tokens_per_second) const;
  void clear_line();
  void log(const std::string& line);
  std::ostream& console_;
  ProgressOptions o_;
  int log_fd_ = -1;  // the log file, opened for appending
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_, window_start_, last_draw_;
  std::int64_t first_step_ = -1;
  double window_loss_ = 0.0;  // token-weighted sum since the last plain line
  std::int64_t window_tokens_ = 0;
  bool line_open_ = false;
};

// Whether stderr is a terminal.
bool stderr_is_tty();

}  // namespace heed
