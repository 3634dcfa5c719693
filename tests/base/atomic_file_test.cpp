#include "heed/base/atomic_file.h"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "heed/base/error.h"

namespace heed {
namespace {
namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

fs::path scratch(const char* name) {
  fs::path d = fs::temp_directory_path() / (std::string(name) + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

TEST(AtomicFile, CommitReplacesTheFileAndLeavesNoTemporary) {
  fs::path d = scratch("atomic_commit");
  fs::path p = d / "out.txt";
  write_file_atomically(p.string(), "old");
  write_file_atomically(p.string(), "new contents\n");
  EXPECT_EQ(slurp(p), "new contents\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 1);
  fs::remove_all(d);
}

TEST(AtomicFile, AnUncommittedFileLeavesTheOldOneUntouched) {
  fs::path d = scratch("atomic_abort");
  fs::path p = d / "out.txt";
  write_file_atomically(p.string(), "kept");
  {
    AtomicFile f(p.string());
    f.stream() << "half-written";
  }  // no commit: as if an exception had left the scope
  EXPECT_EQ(slurp(p), "kept");
  EXPECT_EQ(std::distance(fs::directory_iterator(d), fs::directory_iterator()), 1);
  fs::remove_all(d);
}

TEST(AtomicFile, DevicesAreWrittenDirectlyNotReplaced) {
  write_file_atomically("/dev/null", "discarded\n");
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(AtomicFile, UnwritableDirectoryIsAClearError) {
  try {
    write_file_atomically("/nonexistent-dir/x.txt", "x");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/x.txt: cannot open for writing"),
              std::string::npos)
        << e.what();
  }
}

TEST(AtomicFile, AFailedWriteNamesTheFileAndTheCause) {
  // /dev/full fails every write with ENOSPC, as a full disk does (a device: written directly).
  if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  for (const std::size_t size : {std::size_t{10}, std::size_t{1} << 20}) {  // buffered, direct
    try {
      write_file_atomically("/dev/full", std::string(size, 'x'));
      FAIL() << "expected an error";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("/dev/full: cannot write (No space left on device)"),
                std::string::npos)
          << e.what();
    }
  }
}

// The pid of a process that has exited (and been reaped), so no process runs under it.
pid_t dead_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return pid;
}

TEST(AtomicFile, TemporariesOfDeadProcessesAreRemovedByTheNextWrite) {
  // kill -9 during a write leaves <file>.tmp.<pid>; the next write in that directory removes
  // it, but never a temporary of a running process, nor files that only look similar.
  fs::path d = scratch("atomic_stale");
  const std::string dead = std::to_string(dead_pid());
  const std::string self = std::to_string(::getpid());
  const std::string parent = std::to_string(::getppid());  // running: it started this test
  for (const std::string& name : std::vector<std::string>{
           "last.safetensors.tmp." + dead, "history.jsonl.tmp." + dead, "mine.txt.tmp." + self,
           "other.txt.tmp." + parent, "notes.tmp.txt", "data.tmp.12ab", ".tmp." + dead})
    std::ofstream(d / name) << "x";
  fs::create_directories(d / ("folder.tmp." + dead));
  write_file_atomically((d / "out.txt").string(), "new");
  EXPECT_FALSE(fs::exists(d / ("last.safetensors.tmp." + dead)));
  EXPECT_FALSE(fs::exists(d / ("history.jsonl.tmp." + dead)));
  for (const std::string& kept :
       std::vector<std::string>{"mine.txt.tmp." + self, "other.txt.tmp." + parent,
                                "notes.tmp.txt", "data.tmp.12ab", ".tmp." + dead,
                                "folder.tmp." + dead, "out.txt"})
    EXPECT_TRUE(fs::exists(d / kept)) << kept;
  // Called directly it reports how many it removed.
  std::ofstream(d / ("again.tmp." + dead)) << "x";
  EXPECT_EQ(remove_stale_temporaries(d.string()), 1u);
  EXPECT_EQ(remove_stale_temporaries((d / "absent").string()), 0u);
  fs::remove_all(d);
}

}  // namespace
}  // namespace heed
