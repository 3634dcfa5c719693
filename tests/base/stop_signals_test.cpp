#include "heed/base/stop_signals.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>

namespace heed {
namespace {

std::atomic<int> g_calls{0};
void count_call() { g_calls.fetch_add(1); }

// Waits up to two seconds for the handler to have run `n` times.
bool wait_for_calls(int n) {
  for (int i = 0; i < 200 && g_calls.load() < n; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return g_calls.load() == n;
}

// Each case runs in a child process (a death test): the signal thread and the blocked
// mask stay out of the test runner.
class StopSignals : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(StopSignals, WithoutHandlerASignalEndsTheProcess) {
  EXPECT_EXIT(
      {
        start_signal_thread();
        kill(getpid(), SIGTERM);
        std::this_thread::sleep_for(std::chrono::seconds(5));
        std::_Exit(0);  // not reached
      },
      ::testing::KilledBySignal(SIGTERM), "");
}

TEST_F(StopSignals, FirstSignalCallsTheHandlerAndAQuickRepeatIsIgnored) {
  EXPECT_EXIT(
      {
        start_signal_thread();
        set_stop_handler(count_call);
        kill(getpid(), SIGTERM);
        if (!wait_for_calls(1)) std::_Exit(3);
        kill(getpid(), SIGTERM);  // as `timeout` does: the same request again at once
        kill(getpid(), SIGINT);
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        std::_Exit(g_calls.load() == 1 ? 7 : 4);
      },
      ::testing::ExitedWithCode(7), "");
}

TEST_F(StopSignals, ASignalASecondAfterTheFirstEndsTheProcess) {
  EXPECT_EXIT(
      {
        start_signal_thread();
        set_stop_handler(count_call);
        kill(getpid(), SIGINT);
        if (!wait_for_calls(1)) std::_Exit(3);
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        kill(getpid(), SIGINT);
        std::this_thread::sleep_for(std::chrono::seconds(5));
        std::_Exit(0);  // not reached
      },
      ::testing::KilledBySignal(SIGINT), "");
}

TEST_F(StopSignals, ClearingTheHandlerRestoresTheDefault) {
  EXPECT_EXIT(
      {
        start_signal_thread();
        set_stop_handler(count_call);
        set_stop_handler(nullptr);
        kill(getpid(), SIGTERM);
        std::this_thread::sleep_for(std::chrono::seconds(5));
        std::_Exit(0);  // not reached
      },
      ::testing::KilledBySignal(SIGTERM), "");
}

TEST_F(StopSignals, ComputeThreadsInheritTheBlockedMask) {
  EXPECT_EXIT(
      {
        start_signal_thread();
        bool blocked = false;
        std::thread([&] {
          sigset_t now;
          pthread_sigmask(SIG_BLOCK, nullptr, &now);
          blocked = sigismember(&now, SIGINT) == 1 && sigismember(&now, SIGTERM) == 1;
        }).join();
        std::_Exit(blocked ? 7 : 4);
      },
      ::testing::ExitedWithCode(7), "");
}

}  // namespace
}  // namespace heed
