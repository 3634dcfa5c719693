// End to end: a small memory network learns the generated "where is X?" task (people moving
// between places, tests/support/babi_moves.h) with heed train, and heed eval, heed show and
// heed info read the model it wrote.
#include <gtest/gtest.h>

#include <filesystem>
#include <cmath>
#include <fstream>
#include <map>
#include <regex>

#include "cli/cli_test_util.h"
#include "support/babi_moves.h"

namespace heed::testing {
namespace {

namespace fs = std::filesystem;

class MemoryNetworkCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new ScratchDir("heed_memn2n_cli");
    fs::create_directories(dir_->path("babi"));
    dir_->file("babi/qa1_moves_train.txt", babi_moves_text(400, 11));
    dir_->file("babi/qa1_moves_test.txt", babi_moves_text(60, 12));
    dir_->file("story.txt", babi_moves_text(1, 13));
    const std::string config = dir_->file("c.yaml",
        "data:\n"
        "  babi: {dir: " + dir_->path("babi") + ", tasks: '1', dev_fraction: 0.1}\n"
        "model: {kind: memn2n, emb_dim: 24, hops: 2, memory_size: 20}\n"
        "training:\n"
        "  optimizer: adam\n"
        "  lr: 0.01\n"
        "  max_sentences: 32\n"
        "  max_tokens: 100000\n"
        "  max_epochs: 30\n"
        "  validate_every: 100\n"
        "  clip_norm: 40\n"
        "  metric: error\n"
        "  random_empty_memories: 0.1\n"
        "  threads: 1\n"
        "  seed: 1\n"
        "output: " + dir_->path("m") + "\n");
    train_ = new CommandResult(run_heed("train " + config));
  }
  static void TearDownTestSuite() {
    delete train_;
    delete dir_;
  }
  static ScratchDir* dir_;
  static CommandResult* train_;
};
ScratchDir* MemoryNetworkCli::dir_ = nullptr;
CommandResult* MemoryNetworkCli::train_ = nullptr;

double mean_error(const std::string& output) {
  std::smatch m;
  if (!std::regex_search(output, m, std::regex("mean error ([0-9.]+)%"))) return 1e9;
  return std::stod(m[1]);
}

TEST_F(MemoryNetworkCli, LearnsWhereEachPersonIs) {
  ASSERT_EQ(train_->exit_code, 0) << train_->output;
  EXPECT_NE(train_->output.find("training questions of 1 bAbI task"), std::string::npos)
      << train_->output;
  const CommandResult eval =
      run_heed("eval --model " + dir_->path("m") + " --json " + dir_->path("eval.json") +
               " --attention " + dir_->path("hops.jsonl"));
  ASSERT_EQ(eval.exit_code, 0) << eval.output;
  // Chance is 1 in 5 places; the model finds the person's last move.
  EXPECT_LT(mean_error(eval.output), 5.0) << eval.output;
  EXPECT_TRUE(fs::exists(dir_->path("eval.json")));
  std::ifstream hops(dir_->path("hops.jsonl"));
  std::string first;
  std::getline(hops, first);
  EXPECT_NE(first.find("\"hops\":[["), std::string::npos) << first;
  const CommandResult dev = run_heed("eval --model " + dir_->path("m") + " --split dev");
  EXPECT_EQ(dev.exit_code, 0) << dev.output;
  EXPECT_NE(dev.output.find("bAbI dev questions"), std::string::npos) << dev.output;
}

TEST_F(MemoryNetworkCli, ShowDrawsTheHops) {
  ASSERT_EQ(train_->exit_code, 0) << train_->output;
  const CommandResult show = run_heed("show --model " + dir_->path("m") + " --input " +
                                      dir_->path("story.txt") + " --out " + dir_->path("show"));
  ASSERT_EQ(show.exit_code, 0) << show.output;
  EXPECT_TRUE(fs::exists(dir_->path("show/question-0001.svg")));
  EXPECT_TRUE(fs::exists(dir_->path("show/question-0001.png")));
  EXPECT_TRUE(fs::exists(dir_->path("show/index.html")));
  std::ifstream svg(dir_->path("show/question-0001.svg"));
  const std::string text((std::istreambuf_iterator<char>(svg)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("where is"), std::string::npos);
}

TEST_F(MemoryNetworkCli, InfoDescribesTheModel) {
  ASSERT_EQ(train_->exit_code, 0) << train_->output;
  const CommandResult info = run_heed("info --model " + dir_->path("m"));
  ASSERT_EQ(info.exit_code, 0) << info.output;
  EXPECT_NE(info.output.find("2 hops over the last 20 statements"), std::string::npos)
      << info.output;
  EXPECT_NE(info.output.find("best weights: best.safetensors loads"), std::string::npos)
      << info.output;
}

// Options of the image kinds and a bad --split are command-line mistakes (exit 2); a bad
// --tasks names the option.
TEST_F(MemoryNetworkCli, EvalRefusesImageOptions) {
  ASSERT_EQ(train_->exit_code, 0) << train_->output;
  const CommandResult r = run_heed("eval --model " + dir_->path("m") + " --images x.gz");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("answers bAbI questions"), std::string::npos) << r.output;
  const CommandResult split = run_heed("eval --model " + dir_->path("m") + " --split valid");
  EXPECT_EQ(split.exit_code, 2);
  EXPECT_NE(split.output.find("--split: expected test, train or dev, got 'valid'"),
            std::string::npos)
      << split.output;
  const CommandResult tasks = run_heed("eval --model " + dir_->path("m") + " --tasks 1,1");
  EXPECT_EQ(tasks.exit_code, 1);
  EXPECT_NE(tasks.output.find("--tasks: bAbI tasks \"1,1\": task 1 is given twice"),
            std::string::npos)
      << tasks.output;
}

TEST_F(MemoryNetworkCli, ShowRefusesImages) {
  ASSERT_EQ(train_->exit_code, 0) << train_->output;
  const std::string images = dir_->file("i.gz", "");
  const CommandResult r = run_heed("show --model " + dir_->path("m") + " --images " + images +
                                   " --out " + dir_->path("show_images"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find(dir_->path("m") + " holds a memory network (model.kind memn2n): give "
                          "--input FILE (bAbI stories with their questions), not --images"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace heed::testing

namespace heed::testing {
namespace {

// Weights saved while linear start is still on are marked so, and heed eval answers as the
// training measured them: its dev error is the training's best dev error.
TEST(MemoryNetworkLinearStart, EvalFollowsTheModeTheWeightsWereSavedIn) {
  ScratchDir dir("heed_memn2n_linear");
  std::filesystem::create_directories(dir.path("babi"));
  dir.file("babi/qa1_moves_train.txt", babi_moves_text(200, 21));
  const std::string config = dir.file("c.yaml",
      "data:\n"
      "  babi: {dir: " + dir.path("babi") + ", tasks: '1', dev_fraction: 0.2}\n"
      "model: {kind: memn2n, emb_dim: 16, hops: 2, memory_size: 20}\n"
      "training: {optimizer: sgd, lr: 0.1, max_sentences: 32, max_tokens: 100000, max_epochs: 3,\n"
      "  validate_every: 10, metric: error, linear_start: true, linear_start_patience: 1000,\n"
      "  threads: 1, seed: 3}\n"
      "output: " + dir.path("m") + "\n");
  const CommandResult train = run_heed("train " + config);
  ASSERT_EQ(train.exit_code, 0) << train.output;
  std::smatch best;
  ASSERT_TRUE(std::regex_search(train.output, best, std::regex("best dev error ([0-9.]+) at")))
      << train.output;
  const CommandResult eval = run_heed("eval --model " + dir.path("m") + " --split dev");
  ASSERT_EQ(eval.exit_code, 0) << eval.output;
  EXPECT_NE(eval.output.find("hops without softmax (saved during linear start)"),
            std::string::npos) << eval.output;
  EXPECT_NEAR(mean_error(eval.output), std::stod(best[1]), 0.01) << eval.output << train.output;
}

// The validations' "lr" entries of a run's history.jsonl, by step.
std::map<std::int64_t, double> history_lrs(const std::string& model_dir) {
  std::ifstream in(model_dir + "/history.jsonl");
  std::map<std::int64_t, double> lrs;
  std::string line;
  const std::regex step("\"step\":([0-9]+)"), lr("\"lr\":([0-9.e-]+)");
  while (std::getline(in, line)) {
    std::smatch s, r;
    if (std::regex_search(line, s, step) && std::regex_search(line, r, lr))
      lrs[std::stoll(s[1])] = std::stod(r[1]);
  }
  return lrs;
}

// training.linear_start_lr: linear start runs at its own rate, and the step schedule counts
// its updates afresh from the first one with the softmax back; a resumed run does the same.
TEST(MemoryNetworkLinearStart, OwnRateThenTheScheduleRestarts) {
  ScratchDir dir("heed_memn2n_linear_lr");
  std::filesystem::create_directories(dir.path("babi"));
  dir.file("babi/qa1_moves_train.txt", babi_moves_text(200, 22));
  // 480 training questions in batches of 32: 15 updates an epoch; linear start for one.
  auto config = [&](const std::string& name, int max_steps) {
    return dir.file(name + ".yaml",
        "data:\n"
        "  babi: {dir: " + dir.path("babi") + ", tasks: '1', dev_fraction: 0.2}\n"
        "model: {kind: memn2n, emb_dim: 16, hops: 2, memory_size: 20}\n"
        "training: {optimizer: sgd, lr: 0.2, schedule: step, decay_steps: 3, decay_factor: 0.5,\n"
        "  max_sentences: 32, max_tokens: 100000, max_steps: " + std::to_string(max_steps) + ",\n"
        "  validate_every: 1, linear_start: true, linear_start_patience: 1000,\n"
        "  linear_start_epochs: 1, linear_start_lr: 0.05, threads: 1, seed: 3}\n"
        "output: " + dir.path(name) + "\n");
  };
  const CommandResult whole = run_heed("train " + config("whole", 25));
  ASSERT_EQ(whole.exit_code, 0) << whole.output;
  const std::map<std::int64_t, double> lrs = history_lrs(dir.path("whole"));
  ASSERT_EQ(lrs.size(), 25u) << whole.output;
  for (std::int64_t s = 1; s <= 14; ++s) EXPECT_DOUBLE_EQ(lrs.at(s), 0.05) << "after step " << s;
  // Update s + 1 is the schedule's update s + 1 - 15: 0.2 * 0.5^floor((s - 15) / 3).
  for (std::int64_t s = 16; s <= 25; ++s)
    EXPECT_DOUBLE_EQ(lrs.at(s), 0.2 * std::pow(0.5, static_cast<double>((s - 15) / 3)))
        << "after step " << s;
  EXPECT_NE(whole.output.find("linear start ended after 1 epoch:"), std::string::npos)
      << whole.output;

  // Stopped at step 18 (linear start over), then resumed to step 25: the same rates.
  const std::string part = config("part", 18);
  ASSERT_EQ(run_heed("train " + part).exit_code, 0);
  const CommandResult resumed =
      run_heed("train " + part + " --set training.max_steps=25");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(history_lrs(dir.path("part")), lrs) << resumed.output;
}

}  // namespace
}  // namespace heed::testing
