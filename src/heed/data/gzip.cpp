#include "heed/data/gzip.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

#include "heed/base/error.h"

namespace heed {
namespace {

// zlib counts in uInt; feed it at most this much at a time.
constexpr std::size_t kChunk = std::size_t{1} << 20;

}  // namespace

bool is_gzip(const std::vector<std::uint8_t>& bytes) {
  return bytes.size() >= 2 && bytes[0] == 0x1f && bytes[1] == 0x8b;
}

std::vector<std::uint8_t> gunzip(const std::vector<std::uint8_t>& bytes, std::uint64_t max_out,
                                 const std::string& what) {
  z_stream z{};
  HEED_CHECK(inflateInit2(&z, 16 + MAX_WBITS) == Z_OK, what, ": cannot start zlib's inflate");
  std::vector<std::uint8_t> out;
  std::size_t in_pos = 0;
  try {
    for (;;) {
      if (z.avail_in == 0 && in_pos < bytes.size()) {
        const std::size_t n = std::min(kChunk, bytes.size() - in_pos);
        z.next_in = const_cast<Bytef*>(bytes.data() + in_pos);
        z.avail_in = static_cast<uInt>(n);
        in_pos += n;
      }
      HEED_CHECK(out.size() <= max_out, what, ": decompresses to more than ", max_out,
                 " bytes, expected at most that");
      const std::size_t had = out.size();
      const std::size_t grow = std::min<std::uint64_t>(kChunk, max_out + 1 - had);
      out.resize(had + grow);
      z.next_out = out.data() + had;
      z.avail_out = static_cast<uInt>(grow);
      const int rc = inflate(&z, Z_NO_FLUSH);
      out.resize(had + grow - z.avail_out);
      if (rc == Z_STREAM_END) break;
      const bool input_left = z.avail_in > 0 || in_pos < bytes.size();
      HEED_CHECK(rc != Z_BUF_ERROR || input_left, what,
                 ": truncated gzip data: the stream ends without its end marker after ",
                 bytes.size(), " compressed bytes");
      HEED_CHECK(rc == Z_OK || rc == Z_BUF_ERROR, what, ": damaged gzip data (",
                 z.msg ? z.msg : "zlib error", ")");
    }
    HEED_CHECK(out.size() <= max_out, what, ": decompresses to more than ", max_out,
               " bytes, expected at most that");
    HEED_CHECK(z.avail_in == 0 && in_pos == bytes.size(), what, ": ",
               z.avail_in + (bytes.size() - in_pos),
               " bytes after the end of the gzip stream, expected none");
  } catch (...) {
    inflateEnd(&z);
    throw;
  }
  inflateEnd(&z);
  return out;
}

std::string gzip(std::initializer_list<std::string_view> parts) {
  z_stream z{};
  HEED_CHECK(deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8,
                          Z_DEFAULT_STRATEGY) == Z_OK,
             "cannot start zlib's deflate");
  std::string out;
  auto pump = [&](int flush) {
    int rc;
    do {
      char buf[1 << 16];
      z.next_out = reinterpret_cast<Bytef*>(buf);
      z.avail_out = sizeof buf;
      rc = deflate(&z, flush);
      out.append(buf, sizeof buf - z.avail_out);
    } while (z.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  };
  for (std::string_view part : parts) {
    while (!part.empty()) {
      const std::size_t n = std::min(kChunk, part.size());
      z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(part.data()));
      z.avail_in = static_cast<uInt>(n);
      pump(Z_NO_FLUSH);
      part.remove_prefix(n);
    }
  }
  pump(Z_FINISH);
  deflateEnd(&z);
  return out;
}

}  // namespace heed
