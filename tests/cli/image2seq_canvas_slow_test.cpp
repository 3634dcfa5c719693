// model.kind image2seq learns a tiny canvas task end to end, through `heed train` and `heed
// eval` (docs/MODELS.md#image-to-sequence): 32x32 canvases whose 2x2 slots of 16x16 pixels hold
// 1 to 3 items of three shapes (a square, a horizontal and a vertical bar), the target their
// names in reading order. The data is made here; training and evaluation must take under a
// minute on two cores and decode most test canvases right, and the attention file must hold
// one line per image with a distribution over the 4x4 grid per output word.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <regex>

#include "cli/cli_test_util.h"
#include "heed/base/random.h"
#include "heed/data/idx_file.h"
#include "heed/data/text_file.h"

namespace heed {
namespace {

using testing::run_heed;
using testing::ScratchDir;

constexpr const char* kShapes[] = {"square", "hbar", "vbar"};

void draw(IdxImages& im, std::int64_t i, int shape, std::int64_t top, std::int64_t left) {
  const std::int64_t h = shape == 1 ? 3 : shape == 2 ? 9 : 7, w = shape == 1 ? 9 : shape == 2 ? 3 : 7;
  for (std::int64_t r = top; r < top + h; ++r)
    for (std::int64_t c = left; c < left + w; ++c) im.image(i)[r * 32 + c] = 255;
}

// n canvases of 32x32 and their targets.
void write_canvases(const ScratchDir& dir, const std::string& split, std::int64_t n, Rng& rng) {
  IdxImages im;
  im.count = n;
  im.rows = im.cols = 32;
  im.pixels.assign(static_cast<std::size_t>(n * 1024), 0);
  std::vector<std::string> lines;
  for (std::int64_t i = 0; i < n; ++i) {
    const auto items = static_cast<int>(1 + rng.below(3));
    std::vector<int> slots = {0, 1, 2, 3};
    for (int k = 3; k > 0; --k) std::swap(slots[k], slots[rng.below(static_cast<std::uint64_t>(k + 1))]);
    slots.resize(static_cast<std::size_t>(items));
    std::sort(slots.begin(), slots.end());  // reading order
    std::string line;
    for (int s : slots) {
      const auto shape = static_cast<int>(rng.below(3));
      draw(im, i, shape, (s / 2) * 16 + static_cast<std::int64_t>(rng.below(5)),
           (s % 2) * 16 + static_cast<std::int64_t>(rng.below(5)));
      line += (line.empty() ? "" : " ") + std::string(kShapes[shape]);
    }
    lines.push_back(line);
  }
  write_idx_images(dir.path(split + "-images-idx3-ubyte.gz"), im);
  write_lines(dir.path(split + ".tgt"), lines);
}

// A small image2seq config over the canvas sets of dir; `extra` adds YAML lines to the training
// section (after the model's attention mode).
std::string write_config(const ScratchDir& dir, const std::string& name, const std::string& mode,
                         std::int64_t steps, const std::string& extra = "") {
  return dir.file(
      name + ".yaml", "data:\n  train_images: " + dir.path("train-images-idx3-ubyte.gz") +
                          "\n  train_target: " + dir.path("train.tgt") +
                          "\n  dev_images: " + dir.path("test-images-idx3-ubyte.gz") +
                          "\n  dev_target: " + dir.path("test.tgt") + R"(
model:
  kind: image2seq
  conv_layers: 3
  conv_channels: 8
  emb_dim: 16
  dec_hidden: 48
  attn_dim: 24
  attention:
    mode: )" + mode + R"(
training:
  lr: 0.003
  max_sentences: 32
  max_epochs: 0
  max_steps: )" + std::to_string(steps) + R"(
  validate_every: 250
  metric: error
  clip_norm: 5
  threads: 1
)" + extra + "output: " + dir.path(name) + "\n");
}

TEST(Image2SeqCanvas, LearnsTheItemsInReadingOrderInUnderAMinute) {
  ScratchDir dir("heed_image2seq_canvas");
  Rng rng(11);
  write_canvases(dir, "train", 3000, rng);
  write_canvases(dir, "test", 300, rng);
  const std::string config = write_config(dir, "model", "soft", 500);
  const auto start = std::chrono::steady_clock::now();
  const auto trained = run_heed("train " + config);
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  EXPECT_NE(trained.output.find("3000 training images of 32x32"), std::string::npos)
      << trained.output;
  const auto evaluated = run_heed("eval --model " + dir.path("model") + " --images " +
                                  dir.path("test-images-idx3-ubyte.gz") + " --beam 2 --attention " +
                                  dir.path("attention.jsonl"));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(evaluated.exit_code, 0) << evaluated.output;
  const std::string out = evaluated.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      out, m, std::regex(R"(sequence accuracy ([0-9.]+)% \(95% bootstrap interval ([0-9.]+)-([0-9.]+)%)")))
      << out;
  const double accuracy = std::stod(m[1]), lower = std::stod(m[2]), upper = std::stod(m[3]);
  std::cout << "canvas task: sequence accuracy " << accuracy << "% [" << lower << ", " << upper
            << "] after " << seconds << " s of training and evaluation\n"
            << out;
  EXPECT_GT(accuracy, 60.0) << trained.output << out;
  EXPECT_LE(lower, accuracy);
  EXPECT_GE(upper, accuracy);
  EXPECT_LT(seconds, 60.0);
  EXPECT_NE(out.find("soft attention over a 4x4 grid"), std::string::npos) << out;
  for (const char* items : {"\n    1 ", "\n    2 ", "\n    3 "})
    EXPECT_NE(out.find(items), std::string::npos) << out;

  std::ifstream in(dir.path("attention.jsonl"));
  std::string line;
  int lines = 0, right = 0;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["image"].get<int>(), lines);
    EXPECT_EQ(j["grid"], nlohmann::json::array({4, 4}));
    const std::string output = j["output"];
    const auto words = static_cast<std::size_t>(
        output.empty() ? 0 : std::count(output.begin(), output.end(), ' ') + 1);
    ASSERT_EQ(j["attention"].size(), words) << line;
    for (const auto& a : j["attention"]) {
      ASSERT_EQ(a.size(), 16u);
      double sum = 0;
      for (const auto& v : a) sum += v.get<double>();
      EXPECT_NEAR(sum, 1.0, 1e-4);
    }
    EXPECT_EQ(j["correct"].get<bool>(), j["output"] == j["target"]);
    right += j["correct"].get<bool>();
    ++lines;
  }
  EXPECT_EQ(lines, 300);
  EXPECT_NEAR(100.0 * right / 300.0, accuracy, 0.01);
}

// Hard attention (REINFORCE) and the baseline without attention train and evaluate through the
// same commands; the doubly stochastic penalty trains with soft attention and is refused with
// hard attention. A short run each: the numbers belong to examples/fashion-canvas.
TEST(Image2SeqCanvas, HardAttentionNoAttentionAndThePenaltyRun) {
  ScratchDir dir("heed_image2seq_modes");
  Rng rng(12);
  write_canvases(dir, "train", 600, rng);
  write_canvases(dir, "test", 60, rng);
  for (const std::string mode : {"hard", "none"}) {
    const auto trained = run_heed("train " + write_config(dir, mode, mode, 60));
    ASSERT_EQ(trained.exit_code, 0) << trained.output;
    const auto evaluated = run_heed("eval --model " + dir.path(mode) + " --images " +
                                    dir.path("test-images-idx3-ubyte.gz") + " --attention " +
                                    dir.path(mode + ".jsonl"));
    ASSERT_EQ(evaluated.exit_code, 0) << evaluated.output;
    EXPECT_NE(evaluated.output.find(mode == "hard" ? "hard attention over a 4x4 grid"
                                                   : "no attention (the mean annotation)"),
              std::string::npos)
        << evaluated.output;
    std::ifstream in(dir.path(mode + ".jsonl"));
    std::string line;
    ASSERT_TRUE(std::getline(in, line));
    const auto j = nlohmann::json::parse(line);
    if (mode == "none") EXPECT_TRUE(j["attention"].empty()) << line;
    else EXPECT_FALSE(j["attention"].empty()) << line;
  }
  const auto penalised =
      run_heed("train " + write_config(dir, "penalty", "soft", 30, "  doubly_stochastic: 0.1\n"));
  EXPECT_EQ(penalised.exit_code, 0) << penalised.output;
  const auto refused =
      run_heed("train " + write_config(dir, "refused", "hard", 30, "  doubly_stochastic: 0.1\n"));
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("training.doubly_stochastic"), std::string::npos) << refused.output;
}

}  // namespace
}  // namespace heed
