// The model directory lock seen from the command line: `heed train` and `heed average` (when
// it writes into the model directory) refuse a directory that another process holds, naming
// that process's pid. Here the test itself holds the lock; the slow train test runs two real
// trainings on one directory.
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "heed/base/dir_lock.h"
#include "heed/tensor/safetensors.h"

namespace heed {
namespace {
namespace fs = std::filesystem;
using testing::run_heed;
using testing::ScratchDir;

TEST(DirLockCli, TrainRefusesADirectoryHeldByAnotherProcess) {
  ScratchDir s("heed_lock_train");
  fs::create_directories(s.path("model"));
  // The refusal comes before the data is read, so the data files need not exist.
  const std::string config = s.file("c.yaml",
                                    "data:\n"
                                    "  train_source: " + s.path("a.src") + "\n"
                                    "  train_target: " + s.path("a.tgt") + "\n"
                                    "model:\n  kind: bahdanau\n"
                                    "output: " + s.path("model") + "\n");
  {
    DirLock held(s.path("model"));
    const auto r = run_heed("train " + config);
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("in use by another heed process (pid " + std::to_string(::getpid()) +
                            ")"),
              std::string::npos)
        << r.output;
    EXPECT_TRUE(fs::exists(s.path("model/") + DirLock::kFileName));  // still ours
  }
  // Released: the run gets past the lock (and fails on the missing data instead), and the
  // lock file it took is gone when it ends.
  const auto r = run_heed("train " + config);
  EXPECT_EQ(r.output.find("in use by another"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("a.src"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(s.path("model/") + DirLock::kFileName));
}

TEST(DirLockCli, AverageLocksOnlyWhenWritingIntoTheModelDirectory) {
  ScratchDir s("heed_lock_average");
  fs::create_directories(s.path("model/checkpoints"));
  save_safetensors(s.path("model/checkpoints/step_1.safetensors"),
                   {{"w", Tensor::from({2}, {1.0, 2.0})}});
  DirLock held(s.path("model"));
  auto r = run_heed("average --model " + s.path("model") + " --last 1 --out " +
                    s.path("model/avg.safetensors"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("pid " + std::to_string(::getpid())), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(s.path("model/avg.safetensors")));
  r = run_heed("average --model " + s.path("model") + " --last 1 --out " +
               s.path("avg.safetensors"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(s.path("avg.safetensors")));
}

}  // namespace
}  // namespace heed
