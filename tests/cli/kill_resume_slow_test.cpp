// kill -9 at seeded points of a short `heed train`, then the same command again: the rerun
// resumes (or starts afresh when nothing was saved) and must end with the same files, bit for
// bit, as a run that was never interrupted (docs/RELIABILITY.md, "Fault injection").
//
// Half of the kill points are exact: the fault library (support/fault_preload.c) makes heed
// send itself SIGKILL at its n-th write into the model directory, after writing half of that
// write's bytes. n is drawn from the writes an uninterrupted run makes: one write of each
// file it writes (the lock, config, vocabularies, log, history, marker, best, step
// checkpoints, last, training state), and as many drawn over all its writes. The other half
// are kill -9 from outside at a random moment: once the run's train.log holds L lines (L
// drawn over the lines of an uninterrupted run's log, 0 for the start-up), plus a random
// 0-20 ms. Progress through the log, not a wall-clock delay, so that a loaded machine
// (ctest -j2) moves the kill points no later than the run.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <random>
#include <thread>

#include "fault_injection.h"

namespace heed::fault {
namespace {

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Runs heed with args and the extra environment, output to log. With log_lines >= 0 it polls
// train_log until it holds that many lines, waits `extra` seconds more, and sends SIGKILL
// unless the process has ended by then. Returns the wait status.
int run_and_kill(const std::vector<std::string>& args, const std::vector<std::string>& env_extra,
                 const std::string& log, long log_lines = -1, const std::string& train_log = "",
                 double extra = 0) {
  const std::string binary = heed_binary();
  std::vector<std::string> argv_s = {binary};
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e) env_s.emplace_back(*e);
  env_s.insert(env_s.end(), env_extra.begin(), env_extra.end());
  std::vector<char*> argv, envp;
  for (auto& s : argv_s) argv.push_back(s.data());
  for (auto& s : env_s) envp.push_back(s.data());
  argv.push_back(nullptr);
  envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd >= 0) {
      ::dup2(fd, 1);
      ::dup2(fd, 2);
    }
    ::execve(binary.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  int status = 0;
  if (pid < 0) return -1;
  if (log_lines >= 0) {
    auto end = std::chrono::steady_clock::time_point::max();
    for (;;) {
      if (::waitpid(pid, &status, WNOHANG) == pid) return status;
      const auto now = std::chrono::steady_clock::now();
      if (now >= end) break;
      if (end == std::chrono::steady_clock::time_point::max() &&
          count_lines(read_file(train_log)) >= static_cast<std::size_t>(log_lines))
        end = now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                        std::chrono::duration<double>(extra));
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    ::kill(pid, SIGKILL);
  }
  ::waitpid(pid, &status, 0);
  return status;
}

bool killed(int status) { return WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL; }

TEST(KillResume, KillNineAtSeededPointsThenTheRerunEqualsAnUninterruptedRun) {
  // 64 steps over about five epochs; a validation every 4 steps (best.safetensors, history),
  // a save every 8 (a step checkpoint, last.safetensors, the training state), 2 checkpoints
  // kept, dropout: every kind of state a resume must restore.
  const Task task("heed_kill_resume",
                  "  max_steps: 64\n"
                  "  validate_every: 4\n"
                  "  save_every: 8\n"
                  "  keep_checkpoints: 2\n"
                  "  metric: wer\n");
  const std::string ref = task.path("ref");
  const std::vector<std::string> base = {"train", task.path("config.yaml"), "--set"};

  // The uninterrupted run, with every write into its directory traced; and another, which
  // must give the same files (or nothing here could be compared).
  const Fault trace{"trace", ref + "/", 1, "", task.path("trace.log")};
  const Result r = run_heed(task.train(ref), &trace);
  ASSERT_EQ(r.code, 0) << r.output;
  const Result second = run_heed(task.train(task.path("ref2")));
  ASSERT_EQ(second.code, 0) << second.output;
  const std::size_t log_lines = count_lines(read_file(ref + "/train.log"));
  expect_same_model_dir(ref, task.path("ref2"), "a second uninterrupted run");
  ASSERT_FALSE(::testing::Test::HasFailure());
  std::vector<std::string> writes;  // the path of each write, in order
  {
    std::istringstream in(read_file(task.path("trace.log")));
    for (std::string op, path, bytes; in >> op >> path >> bytes;)
      writes.push_back(path.substr(ref.size() + 1));
  }
  ASSERT_GE(writes.size(), 30u) << "the trace holds too few writes";
  // The writes by file (step checkpoints together, temporaries under their file's name).
  std::map<std::string, std::vector<std::size_t>> by_file;  // write numbers, from 1
  for (std::size_t i = 0; i < writes.size(); ++i) {
    std::string file = writes[i].substr(0, writes[i].find(".tmp."));
    if (file.rfind("checkpoints/", 0) == 0) file = "checkpoints/step_N.safetensors";
    by_file[file].push_back(i + 1);
  }
  ASSERT_GE(by_file.size(), 11u) << "the trace misses some of the files a run writes";

  // The exact kill points: one write of each file (so every file is hit once), and as many
  // drawn over all writes (so most fall in the middle of training, on checkpoint, weights and
  // training-state writes), in a shuffled order. As many kill points from outside.
  std::mt19937 gen(20261125);
  std::vector<std::size_t> exact;
  for (const auto& [file, numbers] : by_file)
    exact.push_back(
        numbers[std::uniform_int_distribution<std::size_t>(0, numbers.size() - 1)(gen)]);
  for (std::size_t i = 0; i < by_file.size(); ++i)
    exact.push_back(std::uniform_int_distribution<std::size_t>(1, writes.size())(gen));
  std::shuffle(exact.begin(), exact.end(), gen);
  const int points = static_cast<int>(2 * exact.size());  // 44 with the 11 files of a run
  int kills = 0, resumed = 0;
  std::ostringstream summary;
  for (int k = 0; k < points; ++k) {
    const std::string dir = task.path("kill" + std::to_string(k));
    std::vector<std::string> args = base;
    args.push_back("output=" + dir);
    std::string point;
    int status = 0;
    if (k % 2 == 0) {
      const std::size_t n = exact[static_cast<std::size_t>(k / 2)];
      const Fault at_write{"write", dir + "/", static_cast<long>(n), "KILL", ""};
      point = "at write " + std::to_string(n) + "/" + std::to_string(writes.size()) + " (" +
              writes[n - 1] + ")";
      status = run_and_kill(args, at_write.env_list(), task.path("killed.log"));
      EXPECT_TRUE(killed(status)) << point << ": not killed\n"
                                  << read_file(task.path("killed.log"));
    } else {
      const auto lines = std::uniform_int_distribution<long>(0, log_lines - 1)(gen);
      const double extra = std::uniform_real_distribution<double>(0.0, 0.02)(gen);
      char buf[96];
      std::snprintf(buf, sizeof buf, "%.1f ms after train.log had %ld of %zu lines", extra * 1000,
                    lines, log_lines);
      point = buf;
      status = run_and_kill(args, {}, task.path("killed.log"), lines, dir + "/train.log", extra);
    }
    kills += killed(status);
    const bool had_state = fs::exists(dir + "/training_state.safetensors");
    const Result again = run_heed(task.train(dir));
    summary << "  killed " << point << (killed(status) ? "" : " (had ended)") << ": "
            << (had_state ? "resumed" : "started afresh") << "\n";
    ASSERT_EQ(again.code, 0) << "killed " << point << "\nkilled run:\n"
                             << read_file(task.path("killed.log")) << "\nrerun:\n"
                             << again.output;
    if (had_state) {
      EXPECT_TRUE(contains(again.output, "resuming")) << point << "\n" << again.output;
      ++resumed;
    }
    EXPECT_EQ(temporaries_under(dir), std::vector<std::string>{}) << point;
    expect_same_model_dir(ref, dir, "killed " + point);
    if (::testing::Test::HasFailure()) break;
    fs::remove_all(dir);
  }
  std::cout << summary.str();
  // The exact kill points always kill; one from outside may come after the end of the run.
  EXPECT_GE(kills, points - points / 4) << summary.str();
  EXPECT_GE(resumed, points / 4) << summary.str();
}

}  // namespace
}  // namespace heed::fault
