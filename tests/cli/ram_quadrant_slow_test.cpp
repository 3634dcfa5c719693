// The recurrent attention model learns a tiny task end to end, through `heed train` and
// `heed eval` (docs/MODELS.md#recurrent-attention-model): which quadrant of a blank 16x16
// canvas holds a bright 4x4 square. The data is made here; training, evaluation and the
// glimpse locations file must come out right in under a minute on two cores, and a run
// stopped halfway resumes to the same weights. A second case
// gives the sensor one small scale, which from the centre mostly misses the square: there
// the trained location policy must beat one left untrained by far.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <regex>

#include "cli/cli_test_util.h"
#include "cli/quadrant_images.h"
#include "heed/base/random.h"

namespace heed {
namespace {

using testing::run_heed;
using testing::kQuadrants;
using testing::ScratchDir;
using testing::write_quadrants;

// A ram config over the quadrant sets of dir, small sizes; `sensor` and `training` are YAML
// lines of the model (glimpses and scales) and training sections.
std::string write_config(const ScratchDir& dir, const std::string& name, const std::string& sensor,
                         const std::string& training) {
  return dir.file(name + ".yaml", "data:\n  train_images: " +
                                      dir.path("train-images-idx3-ubyte.gz") +
                                      "\n  train_target: " + dir.path("train.tgt") +
                                      "\n  dev_images: " + dir.path("test-images-idx3-ubyte.gz") +
                                      "\n  dev_target: " + dir.path("test.tgt") + R"(
model:
  kind: ram
)" + sensor + R"(
  glimpse_size: 4
  glimpse_hidden: 32
  location_hidden: 16
  glimpse_dim: 32
  core_hidden: 32
  location_std: 0.2
training:
  lr: 0.003
  max_sentences: 32
  max_epochs: 0
)" + training + "\noutput: " + dir.path(name) + "\n");
}

TEST(RamQuadrant, LearnsWhichQuadrantHoldsTheSquareInUnderAMinute) {
  ScratchDir dir("heed_ram_quadrant");
  Rng rng(7);
  write_quadrants(dir, "train", 2000, rng);
  write_quadrants(dir, "test", 400, rng);
  const std::string config =
      write_config(dir, "model", "  glimpses: 3\n  scales: 3",
                   "  max_steps: 500\n  validate_every: 250\n  metric: error\n  threads: 2");
  const auto start = std::chrono::steady_clock::now();
  const auto trained = run_heed("train " + config);
  ASSERT_EQ(trained.exit_code, 0) << trained.output;
  EXPECT_NE(trained.output.find("2000 training images of 16x16, 4 classes"), std::string::npos)
      << trained.output;
  const auto evaluated = run_heed("eval --model " + dir.path("model") + " --images " +
                                  dir.path("test-images-idx3-ubyte.gz") + " --locations " +
                                  dir.path("locations.jsonl"));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(evaluated.exit_code, 0) << evaluated.output;
  std::smatch m;
  const std::string out = evaluated.output;
  ASSERT_TRUE(std::regex_search(out, m, std::regex(R"(test error ([0-9.]+)% \(95% bootstrap interval ([0-9.]+)-([0-9.]+)%)")))
      << out;
  const double error = std::stod(m[1]), lower = std::stod(m[2]), upper = std::stod(m[3]);
  std::cout << "quadrant task: test error " << error << "% [" << lower << ", " << upper << "] after "
            << seconds << " s of training and evaluation\n";
  EXPECT_LT(error, 5.0) << trained.output << out;
  EXPECT_LE(lower, error);
  EXPECT_GE(upper, error);
  EXPECT_LT(seconds, 60.0);
  for (const char* q : kQuadrants) EXPECT_NE(out.find(q), std::string::npos) << out;

  // One JSON line per test image, each with one path of three locations inside [-1, 1]^2,
  // the first the centre.
  std::ifstream in(dir.path("locations.jsonl"));
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    EXPECT_EQ(j["image"].get<int>(), lines);
    ASSERT_EQ(j["paths"].size(), 1u);
    ASSERT_EQ(j["paths"][0].size(), 3u);
    EXPECT_EQ(j["paths"][0][0][0].get<double>(), 0.0);
    for (const auto& l : j["paths"][0])
      for (const auto& v : l) EXPECT_LE(std::abs(v.get<double>()), 1.0);
    ++lines;
  }
  EXPECT_EQ(lines, 400);

  // Stopped at step 250 and resumed, the same run ends with the same bytes.
  const auto half = run_heed("train " + config + " --set output=" + dir.path("resumed") +
                             " --set training.max_steps=250");
  ASSERT_EQ(half.exit_code, 0) << half.output;
  const auto rest = run_heed("train " + config + " --set output=" + dir.path("resumed"));
  ASSERT_EQ(rest.exit_code, 0) << rest.output;
  EXPECT_NE(rest.output.find("resuming"), std::string::npos) << rest.output;
  auto bytes = [](const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
  };
  EXPECT_EQ(bytes(dir.path("resumed/last.safetensors")), bytes(dir.path("model/last.safetensors")));

  // M sampled paths: as many paths per image.
  const auto sampled = run_heed("eval --model " + dir.path("model") + " --images " +
                                dir.path("test-images-idx3-ubyte.gz") + " --paths 4 --locations " +
                                dir.path("sampled.jsonl"));
  ASSERT_EQ(sampled.exit_code, 0) << sampled.output;
  EXPECT_NE(sampled.output.find("4 sampled paths averaged"), std::string::npos) << sampled.output;
  std::ifstream s(dir.path("sampled.jsonl"));
  ASSERT_TRUE(std::getline(s, line));
  EXPECT_EQ(nlohmann::json::parse(line)["paths"].size(), 4u);
}

// The error heed eval prints for the model in dir.
double test_error(const ScratchDir& dir, const std::string& model) {
  const auto r = run_heed("eval --model " + dir.path(model) + " --images " +
                          dir.path("test-images-idx3-ubyte.gz"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::smatch m;
  if (!std::regex_search(r.output, m, std::regex(R"(test error ([0-9.]+)%)"))) return 100.0;
  return std::stod(m[1]);
}

TEST(RamQuadrant, TheLearnedPolicyFindsTheSquareWhereOneSmallGlimpseCannot) {
  ScratchDir dir("heed_ram_policy");
  Rng rng(7);
  write_quadrants(dir, "train", 2000, rng);
  write_quadrants(dir, "test", 400, rng);
  // One 4x4 patch: from the centre it sees rows and columns 6..9 only.
  auto train = [&](const std::string& out, double reinforce_weight) {
    const std::string config =
        write_config(dir, out, "  glimpses: 4\n  scales: 1",
                     "  reinforce_weight: " + std::to_string(reinforce_weight) +
                         "\n  max_steps: 16000\n  log_every: 16000\n  threads: 1");
    const auto r = run_heed("train " + config);
    ASSERT_EQ(r.exit_code, 0) << r.output;
  };
  const auto start = std::chrono::steady_clock::now();
  train("learned", 1.0);
  train("untrained", 0.0);  // the policy keeps its initial means
  const double learned = test_error(dir, "learned"), untrained = test_error(dir, "untrained");
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "one 4x4 glimpse scale: test error " << learned << "% with the learned policy, "
            << untrained << "% with the untrained one, " << seconds << " s\n";
  EXPECT_LT(learned, 15.0);
  EXPECT_GT(untrained, 2 * learned + 10.0);
  EXPECT_LT(seconds, 60.0);
}

}  // namespace
}  // namespace heed
