// End to end: `heed data images` (docs/cli/data.md) on a small Fashion-MNIST-shaped source
// the test writes: the files, determinism by seed, train from train and test from test, and
// the exit codes of bad options and bad files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "heed/data/fashion_mnist.h"
#include "heed/data/idx_file.h"
#include "heed/data/text_file.h"

namespace heed {
namespace {

using testing::run_heed;
using testing::ScratchDir;

// n items of 28x28, item i all (base + i), labels i % 10.
void write_split(const std::string& dir, FashionMnistSplit split, std::int64_t n, int base) {
  IdxImages im;
  im.count = n;
  im.rows = im.cols = kFashionMnistSide;
  std::vector<std::uint8_t> labels;
  for (std::int64_t i = 0; i < n; ++i) {
    im.pixels.insert(im.pixels.end(), 28 * 28, static_cast<std::uint8_t>(base + i));
    labels.push_back(static_cast<std::uint8_t>(i % 10));
  }
  write_idx_images(fashion_mnist_images_file(dir, split), im);
  write_idx_labels(fashion_mnist_labels_file(dir, split), labels);
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class DataImagesCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(testing::heed_binary()))
      GTEST_SKIP() << testing::heed_binary() << " not built (ninja heed_cli)";
    std::filesystem::create_directories(src_);
    write_split(src_, FashionMnistSplit::train, 12, 100);
    write_split(src_, FashionMnistSplit::test, 5, 200);
  }
  // Runs `heed data images --source SRC --out DIR ARGS`.
  testing::CommandResult images(const std::string& out, const std::string& args) {
    return run_heed("data images --source '" + src_ + "' --out '" + dir_.path(out) + "' " + args);
  }
  ScratchDir dir_{"heed_data_images"};
  std::string src_ = dir_.path("src");
};

TEST_F(DataImagesCommand, WritesBothSplitsDeterministically) {
  auto r = images("a", "--kind canvas --count 7 --test-count 3 --seed 9");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("12 training and 5 test images of 28x28"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("canvas, 100x100 canvases, seed 9, 2-4 items"), std::string::npos)
      << r.output;
  const IdxImages train = read_idx_images(dir_.path("a/train-images-idx3-ubyte.gz"));
  const IdxImages test = read_idx_images(dir_.path("a/test-images-idx3-ubyte.gz"));
  EXPECT_EQ(train.count, 7);
  EXPECT_EQ(train.rows, 100);
  EXPECT_EQ(train.cols, 100);
  EXPECT_EQ(test.count, 3);
  EXPECT_EQ(read_lines(dir_.path("a/train.tgt")).size(), 7u);
  EXPECT_EQ(read_lines(dir_.path("a/test.tgt")).size(), 3u);
  // Training canvases hold only training items (values 100..111), test only test ones.
  for (std::uint8_t v : train.pixels) EXPECT_TRUE(v == 0 || (v >= 100 && v < 112));
  for (std::uint8_t v : test.pixels) EXPECT_TRUE(v == 0 || (v >= 200 && v < 205));
  ASSERT_EQ(images("b", "--kind canvas --count 7 --test-count 3 --seed 9").exit_code, 0);
  ASSERT_EQ(images("c", "--kind canvas --count 7 --test-count 3 --seed 10").exit_code, 0);
  for (const char* f : {"train-images-idx3-ubyte.gz", "train.tgt", "test-images-idx3-ubyte.gz"}) {
    EXPECT_EQ(bytes_of(dir_.path(std::string("a/") + f)), bytes_of(dir_.path(std::string("b/") + f)))
        << f;
    EXPECT_NE(bytes_of(dir_.path(std::string("a/") + f)), bytes_of(dir_.path(std::string("c/") + f)))
        << f;
  }
}

TEST_F(DataImagesCommand, TranslatedTargetsAreClassNames) {
  auto r = images("t", "--kind translated --size 40 --count 10 --test-count 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_idx_images(dir_.path("t/train-images-idx3-ubyte.gz")).rows, 40);
  for (const std::string& line : read_lines(dir_.path("t/train.tgt"))) {
    bool known = false;
    for (std::string_view name : kFashionMnistClasses) known = known || line == name;
    EXPECT_TRUE(known) << line;
  }
}

TEST_F(DataImagesCommand, UsageErrorsExitWith2AndWriteNothing) {
  for (const char* args : {"--kind squares", "--size 20", "--kind canvas --size 60",
                           "--count 0", "--items 3", "--kind canvas --items 1-5",
                           "--kind cluttered --piece-size 40"}) {
    auto r = images("u", args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir_.path("u/train.tgt"))) << args;
  }
  EXPECT_EQ(run_heed("data images --kind translated").exit_code, 2);  // no --out
}

TEST_F(DataImagesCommand, BadSourceFilesExitWith1NamingTheFile) {
  IdxImages im;
  im.count = 4;
  im.rows = im.cols = 28;
  im.pixels.assign(4 * 28 * 28, 1);
  write_idx_images(fashion_mnist_images_file(src_, FashionMnistSplit::test), im);  // 4 vs 5 labels
  auto r = images("x", "--count 2 --test-count 2");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("t10k-labels-idx1-ubyte.gz holds 5 labels"), std::string::npos)
      << r.output;
  r = run_heed("data images --source '" + dir_.path("none") + "' --out '" + dir_.path("x") + "'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("dataset-fashion-mnist"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace heed
