#include "heed/train/progress.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "heed/base/error.h"

namespace heed {
namespace {

TEST(Progress, AFailedLogWriteNamesTheFileAndTheCause) {
  // A line that cannot be appended to the log (a full disk: /dev/full fails every write with
  // ENOSPC) stops the run with the file and the cause, instead of being lost silently.
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  std::ostringstream console;
  ProgressOptions o;
  o.log_path = "/dev/full";
  Progress progress(console, o);
  try {
    progress.message("validation at step 4");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/dev/full: cannot write (No space left on device)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_NE(console.str().find("validation at step 4"), std::string::npos);
}

TEST(Progress, AnUnwritableLogIsRefusedAtTheStart) {
  std::ostringstream console;
  ProgressOptions o;
  o.log_path = "/nonexistent-dir/train.log";
  try {
    Progress progress(console, o);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/train.log: cannot open for writing"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace heed
