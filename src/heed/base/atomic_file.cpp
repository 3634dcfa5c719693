#include "heed/base/atomic_file.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>

#include "heed/base/error.h"

namespace heed {
namespace fs = std::filesystem;

namespace {
bool is_special(const std::string& path) {
  std::error_code ec;
  const auto st = fs::status(path, ec);
  return !ec && fs::exists(st) && !fs::is_regular_file(st);
}

// The pid of a temporary file's name (<name>.tmp.<pid>), or 0 when it is not one.
pid_t temporary_pid(const std::string& name) {
  const auto dot = name.rfind(".tmp.");
  if (dot == std::string::npos || dot == 0) return 0;
  const std::string digits = name.substr(dot + 5);
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string::npos)
    return 0;
  return static_cast<pid_t>(std::stol(digits));
}

bool process_running(pid_t pid) {
  if (pid == ::getpid()) return true;
  // EPERM: it exists but belongs to another user.
  return ::kill(pid, 0) == 0 || errno == EPERM;
}

// Cleans each directory once per process: the first write there is "the next write" after
// a crash; later writes find nothing new from dead processes worth a directory scan.
void clean_directory_once(const std::string& target) {
  static std::mutex mutex;
  static std::set<std::string> cleaned;
  fs::path parent = fs::path(target).parent_path();
  if (parent.empty()) parent = fs::current_path();
  std::error_code ec;
  const fs::path canonical = fs::weakly_canonical(parent, ec);
  const std::string dir = (ec ? parent : canonical).string();
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!cleaned.insert(dir).second) return;
  }
  remove_stale_temporaries(dir);
}
}  // namespace

std::size_t remove_stale_temporaries(const std::string& dir) {
  std::size_t removed = 0;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) return 0;
  for (const auto& entry : it) {
    const pid_t pid = temporary_pid(entry.path().filename().string());
    if (pid <= 0 || process_running(pid) || !entry.is_regular_file(ec)) continue;
    if (fs::remove(entry.path(), ec)) ++removed;
  }
  return removed;
}

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (!is_special(path_)) {
    clean_directory_once(path_);
    tmp_ = path_ + ".tmp." + std::to_string(::getpid());
  }
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
