#include "heed/base/dir_lock.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "heed/base/error.h"

namespace heed {
namespace {
namespace fs = std::filesystem;

fs::path scratch(const char* name) {
  fs::path d = fs::temp_directory_path() / (std::string(name) + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The message of the heed::Error that locking dir throws, or "" if it succeeds.
std::string refusal(const fs::path& dir) {
  try {
    DirLock lock(dir.string(), "training");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A child process that takes the lock on dir, reports on a pipe and then waits to be killed.
pid_t child_holding(const fs::path& dir) {
  int ready[2];
  if (::pipe(ready) != 0) return -1;
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(ready[0]);
    try {
      DirLock lock(dir.string());
      (void)!::write(ready[1], "1", 1);
      for (;;) ::pause();
    } catch (...) {
      (void)!::write(ready[1], "0", 1);
    }
    ::_exit(1);
  }
  ::close(ready[1]);
  char c = 0;
  const bool ok = ::read(ready[0], &c, 1) == 1 && c == '1';
  ::close(ready[0]);
  return ok ? pid : -1;
}

TEST(DirLock, HolderWritesItsPidAndReleaseRemovesTheFile) {
  const fs::path d = scratch("dir_lock_pid");
  {
    DirLock lock(d.string());
    EXPECT_TRUE(lock.held());
    EXPECT_EQ(slurp(d / DirLock::kFileName), std::to_string(::getpid()) + "\n");
  }
  EXPECT_FALSE(fs::exists(d / DirLock::kFileName));
  DirLock again(d.string());  // free again
  EXPECT_TRUE(again.held());
  again.release();
  EXPECT_FALSE(again.held());
  fs::remove_all(d);
}

TEST(DirLock, SecondLockInTheSameProcessIsRefused) {
  const fs::path d = scratch("dir_lock_same");
  DirLock first(d.string());
  const std::string what = refusal(d);
  EXPECT_NE(what.find(d.string()), std::string::npos) << what;
  EXPECT_NE(what.find("pid " + std::to_string(::getpid())), std::string::npos) << what;
  EXPECT_NE(what.find("training"), std::string::npos) << what;
  fs::remove_all(d);
}

TEST(DirLock, AnotherProcessIsRefusedNamingTheHolderThenTakesOverWhenItDies) {
  const fs::path d = scratch("dir_lock_child");
  const pid_t child = child_holding(d);
  ASSERT_GT(child, 0);
  const std::string what = refusal(d);
  EXPECT_NE(what.find("in use by another heed process (pid " + std::to_string(child) + ")"),
            std::string::npos)
      << what;
  // kill -9 leaves the lock file, with the dead pid in it; the kernel dropped the lock.
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(fs::exists(d / DirLock::kFileName));
  DirLock taken(d.string());
  EXPECT_TRUE(taken.held());
  EXPECT_EQ(slurp(d / DirLock::kFileName), std::to_string(::getpid()) + "\n");
  fs::remove_all(d);
}

TEST(DirLock, MissingDirectoryIsAnError) {
  const fs::path d = scratch("dir_lock_missing") / "absent";
  const std::string what = refusal(d);
  EXPECT_NE(what.find("cannot create the lock file"), std::string::npos) << what;
  fs::remove_all(d.parent_path());
}

TEST(DirLock, MoveKeepsTheLock) {
  const fs::path d = scratch("dir_lock_move");
  DirLock a(d.string());
  DirLock b = std::move(a);
  EXPECT_FALSE(a.held());
  EXPECT_TRUE(b.held());
  EXPECT_FALSE(refusal(d).empty());
  b = DirLock();
  EXPECT_TRUE(refusal(d).empty());
  fs::remove_all(d);
}

}  // namespace
}  // namespace heed
