#include "heed/cli/data_images.h"

#include <cstdio>
#include <filesystem>
#include <iostream>

#include "heed/base/error.h"
#include "heed/cli/enum_option.h"
#include "heed/cli/validators.h"
#include "heed/data/fashion_mnist.h"

namespace heed::cli {
namespace {

// The seed of each split's generator: train draws from Rng(seed), test from Rng(seed + 1).
constexpr std::uint64_t kTestSeedOffset = 1;

void print_split(const char* name, const ImageSet& set, const std::string& dir) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "  %-5s %8lld images  ", name,
                static_cast<long long>(set.images.count));
  std::cout << buf << image_set_images_file(dir, name) << ", "
            << image_set_targets_file(dir, name) << "\n";
}

}  // namespace

void DataImages::setup(CLI::App& data) {
  app_ = data.add_subcommand("images", "Generated image sets from Fashion-MNIST: an item "
                                       "translated or cluttered on a canvas, or several items");
  CLI::App& a = *app_;
  add_enum_option(a, "--kind", options_.kind, "what each image shows");
  a.add_option("--size", options_.size,
               "the canvas side in pixels (default 60; canvas 100)")
      ->check(int_range(1, 4096));
  a.add_option("--count", options_.count, "images of the training set")
      ->check(int_range(1, 10'000'000))
      ->default_val(60000)
      ->capture_default_str();
  a.add_option("--test-count", test_count_, "images of the test set")
      ->check(int_range(1, 10'000'000))
      ->capture_default_str();
  a.add_option("--seed", seed_, "seed of every random choice")->capture_default_str();
  a.add_option("--pieces", options_.pieces, "cluttered: pieces of clutter per image")
      ->check(int_range(0, 64))
      ->capture_default_str();
  a.add_option("--piece-size", options_.piece_size, "cluttered: the side of a piece")
      ->check(int_range(1, 4096))
      ->capture_default_str();
  a.add_option("--items", items_, "canvas: MIN-MAX items per image (at most 4)")
      ->capture_default_str();
  a.add_option("--out,-o", out_, "output directory (created if missing)")->required();
  a.add_option("--source", source_,
               std::string("Fashion-MNIST's directory (default ") + kFashionMnistDefaultDir + ")");
  a.footer(
      "Writes train-images-idx3-ubyte.gz and train.tgt from Fashion-MNIST's training images,\n"
      "test-images-idx3-ubyte.gz and test.tgt from its test images: gzipped IDX canvases and\n"
      "one line of class names per image (docs/cli/data.md).");
}

int DataImages::run() {
  {  // before anything is read: --out names a directory, and a file there is the user's
    std::error_code ec;
    HEED_CHECK(!std::filesystem::exists(out_, ec) || std::filesystem::is_directory(out_, ec),
               out_, ": exists and is not a directory; --out names the directory to write the "
               "image sets into");
  }
  {
    int lo = 0, hi = 0;
    char dash = 0, extra = 0;
    if (std::sscanf(items_.c_str(), "%d%c%d%c", &lo, &dash, &hi, &extra) != 3 || dash != '-')
      throw UsageError("--items: expected MIN-MAX, e.g. 2-4, got '" + items_ + "'");
    options_.min_items = lo;
    options_.max_items = hi;
  }
  if (options_.size == 0) options_.size = default_canvas_size(options_.kind);
  const std::string dir = source_.empty() ? kFashionMnistDefaultDir : source_;
  const IdxLabelledImages train = read_fashion_mnist(dir, FashionMnistSplit::train);
  const IdxLabelledImages test = read_fashion_mnist(dir, FashionMnistSplit::test);
  std::cout << "read Fashion-MNIST (" << dir << "): " << train.images.count << " training and "
            << test.images.count << " test images of " << train.images.rows << "x"
            << train.images.cols << "\n";
  // Both sets are checked before either is made, so a bad option writes nothing.
  ImageSetOptions test_options = options_;
  test_options.count = test_count_;
  validate_image_set_options(options_, train.images.rows, train.images.cols, train.images.count);
  validate_image_set_options(test_options, test.images.rows, test.images.cols, test.images.count);
  Rng train_rng(seed_), test_rng(seed_ + kTestSeedOffset);
  const ImageSet train_set = make_image_set(train, options_, train_rng);
  const ImageSet test_set = make_image_set(test, test_options, test_rng);
  write_image_set(out_, "train", train_set, kFashionMnistClasses);
  write_image_set(out_, "test", test_set, kFashionMnistClasses);
  std::cout << enum_name(options_.kind) << ", " << options_.size << "x" << options_.size
            << " canvases, seed " << seed_;
  if (options_.kind == ImageSetKind::cluttered)
    std::cout << ", " << options_.pieces << " pieces of " << options_.piece_size << "x"
              << options_.piece_size;
  if (options_.kind == ImageSetKind::canvas)
    std::cout << ", " << options_.min_items << "-" << options_.max_items << " items";
  std::cout << ":\n";
  print_split("train", train_set, out_);
  print_split("test", test_set, out_);
  return 0;
}

}  // namespace heed::cli
