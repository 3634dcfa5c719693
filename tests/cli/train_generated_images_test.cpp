// End to end: `heed train` with data.generate (docs/CONFIG.md#data), the image classifiers'
// training set drawn by heed from a Fashion-MNIST-shaped source the test writes, its items
// placed anew every epoch: the run says so, is deterministic by seed, resumes mid-run to the
// same weights as an uninterrupted run, and refuses a bad source or options naming them.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "heed/data/fashion_mnist.h"
#include "heed/data/idx_file.h"

namespace heed {
namespace {

using testing::run_heed;
using testing::ScratchDir;

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class TrainGeneratedImages : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(testing::heed_binary()))
      GTEST_SKIP() << testing::heed_binary() << " not built (ninja heed_cli)";
    std::filesystem::create_directories(src_);
    write_split(FashionMnistSplit::train, 20, 100);
    write_split(FashionMnistSplit::test, 3, 30);  // for heed data images, which reads both
    config_ = dir_.file("fc.yaml", "data:\n"
                                   "  generate:\n"
                                   "    kind: cluttered\n"
                                   "    source: " + src_ + "\n"
                                   "    count: 40\n"
                                   "    size: 36\n"
                                   "model:\n"
                                   "  kind: fc\n"
                                   "  fc_layers: 1\n"
                                   "  fc_hidden: 16\n"
                                   "training:\n"
                                   "  max_sentences: 8\n"
                                   "  max_epochs: 0\n"
                                   "  max_steps: 15\n"
                                   "  save_every: 5\n"
                                   "  log_every: 5\n"
                                   "  threads: 1\n"
                                   "output: unused\n");
  }
  // n items of 28x28: item i a block of 14x14 whose place depends on i, of value base + 7i;
  // labels i % 10 (the classes need not be learnable here, only trained on).
  void write_split(FashionMnistSplit split, std::int64_t n, int base) {
    IdxImages im;
    im.count = n;
    im.rows = im.cols = kFashionMnistSide;
    std::vector<std::uint8_t> labels;
    for (std::int64_t i = 0; i < n; ++i) {
      std::vector<std::uint8_t> item(28 * 28, 0);
      for (std::int64_t r = 0; r < 14; ++r)
        for (std::int64_t c = 0; c < 14; ++c)
          item[static_cast<std::size_t>((r + 14 * (i % 2)) * 28 + c + 7 * (i % 3))] =
              static_cast<std::uint8_t>(base + 7 * i);
      im.pixels.insert(im.pixels.end(), item.begin(), item.end());
      labels.push_back(static_cast<std::uint8_t>(i % 10));
    }
    write_idx_images(fashion_mnist_images_file(src_, split), im);
    write_idx_labels(fashion_mnist_labels_file(src_, split), labels);
  }
  testing::CommandResult train(const std::string& out, const std::string& sets = "") {
    return run_heed("train " + config_ + " --set output=" + dir_.path(out) + " " + sets);
  }
  ScratchDir dir_{"heed_train_generated"};
  std::string src_ = dir_.path("src");
  std::string config_;
};

TEST_F(TrainGeneratedImages, TrainsOnFreshPlacementsAndResumesToTheSameWeights) {
  auto r = train("a");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("40 training images of 36x36, 10 classes, generated (cluttered), "
                          "placed anew every epoch"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("epoch 2 done at step 10"), std::string::npos) << r.output;
  // The saved config keeps the section, so heed info and a resume see how the set was made.
  const std::string saved = bytes_of(dir_.path("a/config.yaml"));
  EXPECT_NE(saved.find("kind: cluttered"), std::string::npos) << saved;

  // Same seed, same weights; another seed of the set, other placements, other weights.
  ASSERT_EQ(train("b").exit_code, 0);
  EXPECT_EQ(bytes_of(dir_.path("a/last.safetensors")), bytes_of(dir_.path("b/last.safetensors")));
  ASSERT_EQ(train("c", "--set data.generate.seed=5").exit_code, 0);
  EXPECT_NE(bytes_of(dir_.path("a/last.safetensors")), bytes_of(dir_.path("c/last.safetensors")));

  // Epoch 1 is the set `heed data images` writes with the same options and seed: trained on
  // that file, the weights agree with the generated run's after one epoch (5 steps), and
  // differ after three, where the generated run saw new placements.
  r = run_heed("data images --kind cluttered --count 40 --size 36 --test-count 1 --source '" +
               src_ + "' --out '" + dir_.path("files") + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string files = "--set data.generate.kind= --set data.train_images=" +
                            dir_.path("files/train-images-idx3-ubyte.gz") +
                            " --set data.train_target=" + dir_.path("files/train.tgt");
  ASSERT_EQ(train("e1", "--set training.max_steps=5").exit_code, 0);
  ASSERT_EQ(train("f1", files + " --set training.max_steps=5").exit_code, 0);
  EXPECT_EQ(bytes_of(dir_.path("e1/last.safetensors")), bytes_of(dir_.path("f1/last.safetensors")));
  ASSERT_EQ(train("f3", files).exit_code, 0);
  EXPECT_NE(bytes_of(dir_.path("a/last.safetensors")), bytes_of(dir_.path("f3/last.safetensors")));

  // Stopped in epoch 2 (step 7 of 5 per epoch) and resumed: the resumed run draws epoch 2's
  // and 3's placements from the seed alone and ends where the uninterrupted run did.
  ASSERT_EQ(train("d", "--set training.max_steps=7").exit_code, 0);
  r = train("d");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("resuming"), std::string::npos) << r.output;
  EXPECT_EQ(bytes_of(dir_.path("a/last.safetensors")), bytes_of(dir_.path("d/last.safetensors")));
}

TEST_F(TrainGeneratedImages, BadSourceOrOptionsAreNamed) {
  auto r = train("e", "--set data.generate.source=" + dir_.path("nowhere"));
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("nowhere"), std::string::npos) << r.output;
  r = train("f", "--set data.generate.size=20");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("data.generate.size: must be 0 (60) or a side from 28"),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir_.path("f")));  // refused before any directory
  r = train("g", "--set data.train_images=x.gz");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("give it or train_images and train_target, not both"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace heed
