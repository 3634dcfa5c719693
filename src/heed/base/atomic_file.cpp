#include "heed/base/atomic_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "heed/base/error.h"

namespace heed {
namespace fs = std::filesystem;

namespace {
bool is_special(const std::string& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  return !ec && fs::exists(st) && !fs::is_regular_file(st);
}
}  // namespace

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (!is_special(path_)) tmp_ = path_ + ".tmp." + std::to_string(::getpid());
  const std::string& target = tmp_.empty() ? path_ : tmp_;
  out_.open(target, std::ios::binary | std::ios::trunc);
  HEED_CHECK(out_.is_open(), path_, ": cannot open for writing (", std::strerror(errno), ")");
}

AtomicFile::~AtomicFile() {
  if (committed_ || tmp_.empty()) return;
  out_.close();
  std::error_code ec;
  fs::remove(tmp_, ec);
}

void AtomicFile::commit() {
  out_.flush();
  const bool ok = out_.good();
  out_.close();
  HEED_CHECK(ok && !out_.fail(), path_, ": write failed (disk full?)");
  if (!tmp_.empty()) {
    std::error_code ec;
    fs::rename(tmp_, path_, ec);
    HEED_CHECK(!ec, path_, ": cannot move the written file into place (", ec.message(), ")");
  }
  committed_ = true;
}

void write_file_atomically(const std::string& path, std::string_view content) {
  AtomicFile f(path);
  f.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  f.commit();
}

}  // namespace heed
