#include "heed/base/atomic_file.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

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

}  // namespace
}  // namespace heed
