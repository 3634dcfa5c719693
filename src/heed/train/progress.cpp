#include "heed/train/progress.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "heed/base/error.h"

namespace heed {

bool stderr_is_tty() { return isatty(STDERR_FILENO) != 0; }

Progress::Progress(std::ostream& console, ProgressOptions options)
    : console_(console), o_(std::move(options)) {
  if (!o_.log_path.empty()) {
    log_fd_ = ::open(o_.log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
    HEED_CHECK(log_fd_ >= 0, o_.log_path, ": cannot open for writing (", std::strerror(errno), ")");
  }
  start_ = window_start_ = last_draw_ = Clock::now();
}

Progress::~Progress() {
  finish();
  if (log_fd_ >= 0) ::close(log_fd_);
}

// Appends one line to the log; a failed write (a full disk) stops the run, naming the cause.
void Progress::log(const std::string& line) {
  if (log_fd_ < 0) return;
  const std::string text = line + "\n";
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t w = ::write(log_fd_, text.data() + done, text.size() - done);
    if (w < 0 && errno == EINTR) continue;
    HEED_CHECK(w > 0, o_.log_path, ": cannot write (", std::strerror(w < 0 ? errno : EIO), ")");
    done += static_cast<std::size_t>(w);
  }
}

std::string Progress::format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "-";
  const long long s = std::llround(seconds);
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, (s % 3600) / 60);
  else if (s >= 60)
    std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%llds", s);
  return buf;
}

std::string Progress::status_line(std::int64_t step, std::int64_t epoch, double loss, double lr,
                                  double tokens_per_second) const {
  char buf[256];
  char steps[64];
  if (o_.total_steps > 0)
    std::snprintf(steps, sizeof steps, "%lld/%lld", static_cast<long long>(step),
                  static_cast<long long>(o_.total_steps));
  else
    std::snprintf(steps, sizeof steps, "%lld", static_cast<long long>(step));
  const double tps = tokens_per_second;
  char rate[32];
  if (tps >= 1e4)
    std::snprintf(rate, sizeof rate, "%.1fk", tps / 1e3);
  else
    std::snprintf(rate, sizeof rate, "%.0f", tps);
  std::string eta = "-";
  const double elapsed = std::chrono::duration<double>(Clock::now() - start_).count();
  const std::int64_t done = step - first_step_;
  double left = -1;  // the sooner of the step limit and the time budget
  if (o_.total_steps > 0 && done > 0 && step <= o_.total_steps)
    left = elapsed / static_cast<double>(done) * static_cast<double>(o_.total_steps - step);
  if (o_.seconds_left > 0) {
    const double budget = o_.seconds_left > elapsed ? o_.seconds_left - elapsed : 0.0;
    left = left < 0 || budget < left ? budget : left;
  }
  if (left >= 0) eta = format_duration(left);
  std::snprintf(buf, sizeof buf, "step %s | epoch %lld | loss %.4f | lr %.2e | %s tok/s | ETA %s",
                steps, static_cast<long long>(epoch + 1), loss, lr, rate, eta.c_str());
  return buf;
}

void Progress::clear_line() {
  if (line_open_) {
    console_ << "\r\033[K";
    line_open_ = false;
  }
}

void Progress::step(std::int64_t step, std::int64_t epoch, double loss,
                    std::int64_t target_tokens, double lr) {
  const auto now = Clock::now();
  if (first_step_ < 0) {
    first_step_ = step - 1;
    start_ = window_start_ = now;
  }
  window_loss_ += loss * static_cast<double>(target_tokens);
  window_tokens_ += target_tokens;
  const bool plain = step % o_.log_every == 0;
  const bool draw = o_.tty && std::chrono::duration<double>(now - last_draw_).count() >= 0.2;
  if (!plain && !draw) return;
  const double seconds = std::chrono::duration<double>(now - window_start_).count();
  const double mean = window_tokens_ ? window_loss_ / static_cast<double>(window_tokens_) : 0.0;
  const double tps = seconds > 0 ? static_cast<double>(window_tokens_) / seconds : 0.0;
  const std::string line = status_line(step, epoch, mean, lr, tps);
  if (o_.tty) {
    console_ << "\r\033[K" << line << std::flush;
    line_open_ = true;
    last_draw_ = now;
  }
  if (plain) {
    if (!o_.tty) console_ << line << "\n" << std::flush;
    log(line);
    window_loss_ = 0.0;
    window_tokens_ = 0;
    window_start_ = now;
  }
}

void Progress::message(const std::string& line) {
  clear_line();
  console_ << line << "\n" << std::flush;
  log(line);
}

void Progress::finish() {
  if (line_open_) {
    console_ << "\n" << std::flush;
    line_open_ = false;
  }
}

}  // namespace heed
