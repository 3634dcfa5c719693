#pragma once
// IDX files: the format of MNIST and Fashion-MNIST (docs/DATA.md, "Images"). A file is a
// big-endian header, the magic number 0x000008DD (two zero bytes, 0x08 for unsigned bytes,
// then the number of dimensions DD), one 32-bit big-endian size per dimension, and the
// bytes of the array in row-major order, nothing after them. Files may be gzipped (as the
// originals are): a file starting with gzip's magic bytes 1f 8b is inflated first.
//
// The readers refuse, with a heed::Error naming the file, the expected and the found: a
// wrong magic number, a truncated header or array, bytes after the array, a damaged or
// truncated gzip stream, and an array of more than kMaxIdxBytes.
#include <cstdint>
#include <string>
#include <vector>

namespace heed {

inline constexpr std::uint32_t kIdxImagesMagic = 0x00000803;  // unsigned bytes, 3 dimensions
inline constexpr std::uint32_t kIdxLabelsMagic = 0x00000801;  // unsigned bytes, 1 dimension
inline constexpr std::uint64_t kMaxIdxBytes = std::uint64_t{1} << 32;  // 4 GiB

// A stack of count images of rows x cols bytes (0 = background), image i at
// pixels[i * rows * cols].
struct IdxImages {
  std::int64_t count = 0, rows = 0, cols = 0;
  std::vector<std::uint8_t> pixels;

  std::int64_t image_size() const { return rows * cols; }
  const std::uint8_t* image(std::int64_t i) const { return pixels.data() + i * image_size(); }
  std::uint8_t* image(std::int64_t i) { return pixels.data() + i * image_size(); }
};

// The file's bytes, inflated when gzipped (at most kMaxIdxBytes plus the header).
std::vector<std::uint8_t> read_idx_bytes(const std::string& path);

IdxImages read_idx_images(const std::string& path);
std::vector<std::uint8_t> read_idx_labels(const std::string& path);

// Both files of a labelled set, refused unless they hold the same number of items (the
// message names both files and both counts).
struct IdxLabelledImages {
  IdxImages images;
  std::vector<std::uint8_t> labels;
};
IdxLabelledImages read_idx_labelled(const std::string& images_path, const std::string& labels_path);

// Write gzipped IDX files (deterministic bytes: no time stamp in the gzip header) through an
// AtomicFile (base/atomic_file.h).
void write_idx_images(const std::string& path, const IdxImages& images);
void write_idx_labels(const std::string& path, const std::vector<std::uint8_t>& labels);

}  // namespace heed
