#include "heed/data/fashion_mnist.h"

#include <filesystem>

#include "heed/base/error.h"

namespace heed {
namespace {

std::string file(const std::string& dir, FashionMnistSplit split, const char* what) {
  const char* prefix = split == FashionMnistSplit::train ? "train" : "t10k";
  return (std::filesystem::path(dir) / (std::string(prefix) + what)).string();
}

}  // namespace

std::string fashion_mnist_images_file(const std::string& dir, FashionMnistSplit split) {
  return file(dir, split, "-images-idx3-ubyte.gz");
}

std::string fashion_mnist_labels_file(const std::string& dir, FashionMnistSplit split) {
  return file(dir, split, "-labels-idx1-ubyte.gz");
}

IdxLabelledImages read_fashion_mnist(const std::string& dir, FashionMnistSplit split) {
  const std::string images = fashion_mnist_images_file(dir, split);
  HEED_CHECK(std::filesystem::is_directory(dir), dir,
             ": no such directory, expected Fashion-MNIST's gzipped IDX files there (Debian's "
             "package dataset-fashion-mnist installs them in ",
             kFashionMnistDefaultDir, "; tools/setup.sh installs it)");
  IdxLabelledImages s = read_idx_labelled(images, fashion_mnist_labels_file(dir, split));
  HEED_CHECK(s.images.rows == kFashionMnistSide && s.images.cols == kFashionMnistSide, images,
             ": images of ", s.images.rows, "x", s.images.cols, ", expected ", kFashionMnistSide,
             "x", kFashionMnistSide, " (Fashion-MNIST)");
  for (std::size_t i = 0; i < s.labels.size(); ++i)
    HEED_CHECK(s.labels[i] < kFashionMnistClasses.size(), fashion_mnist_labels_file(dir, split),
               ": label ", int{s.labels[i]}, " of item ", i, ", expected 0..",
               kFashionMnistClasses.size() - 1);
  return s;
}

}  // namespace heed
