// The IDX reader (data/idx_file.h) and Fashion-MNIST's files (data/fashion_mnist.h): round
// trips, and the refusals of docs/DATA.md, "Images", on files the tests write.
#include "heed/data/idx_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "data/temp_dir.h"
#include "heed/base/error.h"
#include "heed/data/fashion_mnist.h"
#include "heed/data/gzip.h"

namespace heed {
namespace {

using testing::TempDir;

std::string be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// A plain (not gzipped) IDX file of the given magic, sizes and data bytes.
std::string idx(std::uint32_t magic, std::vector<std::uint32_t> dims, const std::string& data) {
  std::string s = be32(magic);
  for (std::uint32_t d : dims) s += be32(d);
  return s + data;
}

IdxImages images(std::int64_t count, std::int64_t side) {
  IdxImages im;
  im.count = count;
  im.rows = im.cols = side;
  for (std::int64_t i = 0; i < count * side * side; ++i)
    im.pixels.push_back(static_cast<std::uint8_t>(i * 7 + 1));
  return im;
}

// The message of the heed::Error that fn throws ("" when none).
template <typename F>
std::string error_of(F fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(IdxFile, GzippedRoundTrip) {
  TempDir dir;
  const IdxImages im = images(3, 5);
  write_idx_images(dir.file("i.gz"), im);
  write_idx_labels(dir.file("l.gz"), {4, 0, 9});
  const IdxLabelledImages back = read_idx_labelled(dir.file("i.gz"), dir.file("l.gz"));
  EXPECT_EQ(back.images.count, 3);
  EXPECT_EQ(back.images.rows, 5);
  EXPECT_EQ(back.images.cols, 5);
  EXPECT_EQ(back.images.pixels, im.pixels);
  EXPECT_EQ(back.labels, (std::vector<std::uint8_t>{4, 0, 9}));
  // gzipped, with the same bytes every time
  std::ifstream in(dir.file("i.gz"), std::ios::binary);
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), {});
  EXPECT_TRUE(is_gzip(bytes));
  write_idx_images(dir.file("again.gz"), im);
  EXPECT_EQ(read_idx_bytes(dir.file("again.gz")), read_idx_bytes(dir.file("i.gz")));
}

TEST(IdxFile, ReadsPlainFiles) {
  TempDir dir;
  const auto path = dir.write("i", idx(kIdxImagesMagic, {2, 1, 3}, "abcdef"));
  const IdxImages im = read_idx_images(path);
  EXPECT_EQ(im.count, 2);
  EXPECT_EQ(im.rows, 1);
  EXPECT_EQ(im.cols, 3);
  EXPECT_EQ(im.image(1)[0], 'd');
  EXPECT_EQ(read_idx_labels(dir.write("l", idx(kIdxLabelsMagic, {0}, ""))).size(), 0u);
}

TEST(IdxFile, RefusesBadMagic) {
  TempDir dir;
  const auto labels = dir.write("labels", idx(kIdxLabelsMagic, {2}, "\1\2"));
  const std::string e = error_of([&] { read_idx_images(labels); });
  EXPECT_NE(e.find(labels), std::string::npos) << e;
  EXPECT_NE(e.find("magic number 0x00000801, expected 0x00000803"), std::string::npos) << e;
  const auto floats = dir.write("f", idx(0x00000D01, {1}, "abcd"));
  EXPECT_NE(error_of([&] { read_idx_labels(floats); }).find("0x00000d01, expected 0x00000801"),
            std::string::npos);
}

TEST(IdxFile, RefusesWrongDimensionCount) {
  TempDir dir;
  // Two dimensions where images need three: the magic number says so.
  const auto path = dir.write("i", idx(0x00000802, {2, 4}, "12345678"));
  EXPECT_NE(error_of([&] { read_idx_images(path); }).find("expected 0x00000803"),
            std::string::npos);
}

TEST(IdxFile, RefusesTruncatedFiles) {
  TempDir dir;
  EXPECT_NE(error_of([&] { read_idx_images(dir.write("a", std::string("\0\0\x08", 3))); })
                .find("truncated IDX header: 3 bytes, expected at least 4"),
            std::string::npos);
  EXPECT_NE(error_of([&] { read_idx_images(dir.write("b", be32(kIdxImagesMagic) + be32(2))); })
                .find("truncated IDX header: 8 bytes, expected 16"),
            std::string::npos);
  const std::string e =
      error_of([&] { read_idx_images(dir.write("c", idx(kIdxImagesMagic, {2, 2, 2}, "1234567"))); });
  EXPECT_NE(e.find("truncated: 7 bytes of images data, expected 8"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { read_idx_labels(dir.write("d", idx(kIdxLabelsMagic, {3}, "123x"))); })
                .find("1 bytes after the labels data"),
            std::string::npos);
  // A header promising more than the limit is refused before anything is allocated.
  EXPECT_NE(error_of([&] {
              read_idx_images(dir.write("e", idx(kIdxImagesMagic, {0xffffffff, 0xffff, 9}, "")));
            }).find("more than"),
            std::string::npos);
  // No images, but each would be 2^32 x 2^32 bytes (rows * cols overflowed where the images
  // were used; found by the IDX fuzzer): refused too.
  const std::string f = error_of([&] {
    read_idx_images(dir.write("f", idx(kIdxImagesMagic, {0, 0xfeffffff, 0xffff0703}, "")));
  });
  EXPECT_NE(f.find("the header's sizes make items of more than"), std::string::npos) << f;
  // An empty set of reasonable images stays readable.
  EXPECT_EQ(read_idx_images(dir.write("g", idx(kIdxImagesMagic, {0, 28, 28}, ""))).count, 0);
}

TEST(IdxFile, RefusesTruncatedOrDamagedGzip) {
  TempDir dir;
  write_idx_images(dir.file("i.gz"), images(4, 6));
  std::ifstream in(dir.file("i.gz"), std::ios::binary);
  const std::string gz((std::istreambuf_iterator<char>(in)), {});
  const std::string cut = dir.write("cut.gz", gz.substr(0, gz.size() / 2));
  std::string e = error_of([&] { read_idx_images(cut); });
  EXPECT_NE(e.find(cut + ": truncated gzip data"), std::string::npos) << e;
  std::string damaged = gz;
  damaged[gz.size() - 6] ^= 0x55;  // inside the CRC-32 / length trailer
  e = error_of([&] { read_idx_images(dir.write("damaged.gz", damaged)); });
  EXPECT_NE(e.find("damaged gzip data"), std::string::npos) << e;
  e = error_of([&] { read_idx_images(dir.write("tail.gz", gz + "xyz")); });
  EXPECT_NE(e.find("3 bytes after the end of the gzip stream"), std::string::npos) << e;
  EXPECT_NE(error_of([&] { read_idx_images(dir.file("missing.gz")); }).find("cannot open"),
            std::string::npos);
}

TEST(IdxFile, RefusesCountMismatchBetweenImagesAndLabels) {
  TempDir dir;
  write_idx_images(dir.file("i.gz"), images(3, 2));
  write_idx_labels(dir.file("l.gz"), {1, 2});
  const std::string e = error_of([&] { read_idx_labelled(dir.file("i.gz"), dir.file("l.gz")); });
  EXPECT_NE(e.find(dir.file("l.gz") + " holds 2 labels, expected one per image of " +
                   dir.file("i.gz") + ": 3"),
            std::string::npos)
      << e;
}

TEST(FashionMnist, RefusesOtherSizesAndLabels) {
  TempDir dir;
  const std::string d = dir.file("");
  write_idx_images(fashion_mnist_images_file(d, FashionMnistSplit::test), images(2, 32));
  write_idx_labels(fashion_mnist_labels_file(d, FashionMnistSplit::test), {1, 2});
  std::string e = error_of([&] { read_fashion_mnist(d, FashionMnistSplit::test); });
  EXPECT_NE(e.find("t10k-images-idx3-ubyte.gz: images of 32x32, expected 28x28"),
            std::string::npos)
      << e;
  write_idx_images(fashion_mnist_images_file(d, FashionMnistSplit::test), images(2, 28));
  write_idx_labels(fashion_mnist_labels_file(d, FashionMnistSplit::test), {1, 10});
  e = error_of([&] { read_fashion_mnist(d, FashionMnistSplit::test); });
  EXPECT_NE(e.find("label 10 of item 1, expected 0..9"), std::string::npos) << e;
  e = error_of([&] { read_fashion_mnist(dir.file("nowhere"), FashionMnistSplit::train); });
  EXPECT_NE(e.find("dataset-fashion-mnist"), std::string::npos) << e;
}

// The installed package, when present: the official counts.
TEST(FashionMnist, InstalledPackage) {
  if (!std::filesystem::exists(fashion_mnist_images_file(kFashionMnistDefaultDir,
                                                         FashionMnistSplit::test)))
    GTEST_SKIP() << "dataset-fashion-mnist is not installed";
  const IdxLabelledImages test = read_fashion_mnist(kFashionMnistDefaultDir, FashionMnistSplit::test);
  EXPECT_EQ(test.images.count, 10000);
  std::vector<int> per_class(10);
  for (std::uint8_t l : test.labels) ++per_class[l];
  for (int n : per_class) EXPECT_EQ(n, 1000);  // the test set is balanced
}

}  // namespace
}  // namespace heed
