#include "heed/data/idx_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string_view>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/data/gzip.h"

namespace heed {
namespace {

std::uint32_t big_endian(const std::uint8_t* p) {
  return std::uint32_t{p[0]} << 24 | std::uint32_t{p[1]} << 16 | std::uint32_t{p[2]} << 8 | p[3];
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

// The header of an IDX file of unsigned bytes with `ndims` dimensions: its sizes, and the
// array after it checked to hold exactly their product.
std::vector<std::uint64_t> check_idx(const std::string& path, const std::vector<std::uint8_t>& b,
                                     std::uint32_t magic, const char* what) {
  const std::size_t ndims = magic & 0xff;
  HEED_CHECK(b.size() >= 4, path, ": truncated IDX header: ", b.size(),
             " bytes, expected at least 4 (the magic number)");
  const std::uint32_t found = big_endian(b.data());
  HEED_CHECK(found == magic, path, ": magic number ", hex(found), ", expected ", hex(magic), " (",
             what, ": unsigned bytes, ", ndims, " dimension", ndims > 1 ? "s" : "", ")");
  const std::size_t header = 4 + 4 * ndims;
  HEED_CHECK(b.size() >= header, path, ": truncated IDX header: ", b.size(), " bytes, expected ",
             header, " (the magic number and ", ndims, " sizes)");
  std::vector<std::uint64_t> dims(ndims);
  // The product of the sizes that are not zero, saturating above the limit: a zero count
  // must not admit items of absurd size (whose rows * cols would overflow later).
  std::uint64_t span = 1;
  bool empty = false;
  for (std::size_t d = 0; d < ndims; ++d) {
    dims[d] = big_endian(b.data() + 4 + 4 * d);
    if (dims[d] == 0) empty = true;
    else if (span <= kMaxIdxBytes) span *= dims[d];
  }
  HEED_CHECK(span <= kMaxIdxBytes, path, ": the header's sizes make ",
             empty ? "items" : "an array", " of more than ", kMaxIdxBytes,
             " bytes, expected at most that");
  const std::uint64_t n = empty ? 0 : span;
  const std::uint64_t data = b.size() - header;
  HEED_CHECK(data >= n, path, ": truncated: ", data, " bytes of ", what, " data, expected ", n,
             " (the header's sizes)");
  HEED_CHECK(data == n, path, ": ", data - n, " bytes after the ", what,
             " data, expected none (the header's sizes give ", n, " bytes)");
  return dims;
}

std::string big_endian_header(std::uint32_t magic, std::initializer_list<std::int64_t> dims) {
  std::string h;
  auto put = [&](std::uint64_t v) {
    HEED_CHECK(v <= 0xffffffffu, "an IDX size of ", v, " does not fit 32 bits");
    for (int s = 24; s >= 0; s -= 8) h.push_back(static_cast<char>((v >> s) & 0xff));
  };
  put(magic);
  for (std::int64_t d : dims) put(static_cast<std::uint64_t>(d));
  return h;
}

void write_gzip_file(const std::string& path, std::string_view header, const std::uint8_t* data,
                     std::size_t size) {
  write_file_atomically(
      path, gzip({header, std::string_view(reinterpret_cast<const char*>(data), size)}));
}

}  // namespace

std::vector<std::uint8_t> read_idx_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  HEED_CHECK(in, path, ": cannot open for reading (", std::strerror(errno), ")");
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  HEED_CHECK(!in.bad(), path, ": cannot read (", std::strerror(errno), ")");
  if (!is_gzip(bytes)) return bytes;
  // The largest header is 4 + 4 * 255 bytes.
  return gunzip(bytes, kMaxIdxBytes + 4 + 4 * 255, path);
}

IdxImages read_idx_images(const std::string& path) {
  const std::vector<std::uint8_t> b = read_idx_bytes(path);
  const std::vector<std::uint64_t> d = check_idx(path, b, kIdxImagesMagic, "images");
  IdxImages im;
  im.count = static_cast<std::int64_t>(d[0]);
  im.rows = static_cast<std::int64_t>(d[1]);
  im.cols = static_cast<std::int64_t>(d[2]);
  im.pixels.assign(b.begin() + 16, b.end());
  return im;
}

std::vector<std::uint8_t> read_idx_labels(const std::string& path) {
  const std::vector<std::uint8_t> b = read_idx_bytes(path);
  check_idx(path, b, kIdxLabelsMagic, "labels");
  return {b.begin() + 8, b.end()};
}

IdxLabelledImages read_idx_labelled(const std::string& images_path,
                                    const std::string& labels_path) {
  IdxLabelledImages s{read_idx_images(images_path), read_idx_labels(labels_path)};
  HEED_CHECK(static_cast<std::int64_t>(s.labels.size()) == s.images.count, labels_path, " holds ",
             s.labels.size(), " labels, expected one per image of ", images_path, ": ",
             s.images.count);
  return s;
}

void write_idx_images(const std::string& path, const IdxImages& images) {
  HEED_CHECK(static_cast<std::int64_t>(images.pixels.size()) == images.count * images.image_size(),
             path, ": ", images.pixels.size(), " pixels for ", images.count, " images of ",
             images.rows, "x", images.cols);
  write_gzip_file(path, big_endian_header(kIdxImagesMagic, {images.count, images.rows, images.cols}),
                  images.pixels.data(), images.pixels.size());
}

void write_idx_labels(const std::string& path, const std::vector<std::uint8_t>& labels) {
  write_gzip_file(path,
                  big_endian_header(kIdxLabelsMagic, {static_cast<std::int64_t>(labels.size())}),
                  labels.data(), labels.size());
}

}  // namespace heed
