#include "heed/base/stop_signals.h"

#include <pthread.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <thread>

namespace heed {

namespace {

std::atomic<void (*)()> g_handler{nullptr};
// Steady-clock nanoseconds of the first signal since the handler was set; 0 = none yet.
std::atomic<std::int64_t> g_first_ns{0};

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

sigset_t stop_set() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  return set;
}

[[noreturn]] void default_action(int sig) {
  std::signal(sig, SIG_DFL);
  sigset_t one;
  sigemptyset(&one);
  sigaddset(&one, sig);
  pthread_sigmask(SIG_UNBLOCK, &one, nullptr);
  raise(sig);      // ends the process, reported as killed by sig
  std::_Exit(128 + sig);  // only if sig's default action were changed elsewhere
}

void watch() {
  const sigset_t set = stop_set();
  for (;;) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    void (*handler)() = g_handler.load();
    if (handler == nullptr) default_action(sig);
    const std::int64_t now = now_ns();
    std::int64_t first = 0;
    if (g_first_ns.compare_exchange_strong(first, now)) {
      handler();
      continue;
    }
    if (now - first >= std::int64_t{1'000'000'000}) default_action(sig);
    // else: the same request delivered twice; ignore it.
  }
}

}  // namespace

void start_signal_thread() {
  const sigset_t set = stop_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread(watch).detach();
}

void set_stop_handler(void (*handler)()) {
  g_first_ns.store(0);
  g_handler.store(handler);
}

}  // namespace heed
