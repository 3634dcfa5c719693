#pragma once
// Fashion-MNIST as Debian's package dataset-fashion-mnist installs it (docs/DATA.md,
// "Images"): four gzipped IDX files, 60,000 training and 10,000 test images of 28x28
// with labels 0..9.
#include <array>
#include <string>
#include <string_view>

#include "heed/data/idx_file.h"

namespace heed {

inline constexpr const char* kFashionMnistDefaultDir = "/usr/share/datasets/fashion-mnist";
inline constexpr std::int64_t kFashionMnistSide = 28;

// The class of each label, as one word each (the target tokens of generated sets).
inline constexpr std::array<std::string_view, 10> kFashionMnistClasses = {
    "t-shirt/top", "trouser", "pullover", "dress", "coat",
    "sandal",      "shirt",   "sneaker",  "bag",   "ankle-boot"};

enum class FashionMnistSplit { train, test };

// <dir>/train-images-idx3-ubyte.gz and train-labels-idx1-ubyte.gz, or t10k-... for test.
std::string fashion_mnist_images_file(const std::string& dir, FashionMnistSplit split);
std::string fashion_mnist_labels_file(const std::string& dir, FashionMnistSplit split);

// Reads one split; refuses (heed::Error naming the file) what read_idx_labelled refuses,
// images other than 28x28 and labels above 9. A missing directory is named with the
// package that installs it.
IdxLabelledImages read_fashion_mnist(const std::string& dir, FashionMnistSplit split);

}  // namespace heed
