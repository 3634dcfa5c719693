#include "heed/base/atomic_file.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <set>
#include <streambuf>
#include <vector>

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

// The stream's buffer: 64 KiB, then write(2) to the file descriptor. The first failed write
// keeps its errno, and every later write fails at once, so commit() can name the cause.
class AtomicFile::Buffer : public std::streambuf {
 public:
  explicit Buffer(int fd) : fd_(fd), data_(1 << 16) { reset(); }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    if (n < epptr() - pptr()) {
      std::memcpy(pptr(), s, static_cast<std::size_t>(n));
      pbump(static_cast<int>(n));
      return n;
    }
    return drain() && put(s, static_cast<std::size_t>(n)) ? n : 0;
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  void reset() { setp(data_.data(), data_.data() + data_.size()); }
  bool drain() {
    const bool ok = put(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    reset();
    return ok;
  }
  bool put(const char* p, std::size_t n) {
    while (n > 0 && error_ == 0) {
      const ssize_t w = ::write(fd_, p, n);
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        error_ = w < 0 ? errno : EIO;
        break;
      }
      p += w;
      n -= static_cast<std::size_t>(w);
    }
    return error_ == 0;
  }

  int fd_;
  std::vector<char> data_;
  int error_ = 0;
};

AtomicFile::AtomicFile(std::string path) : path_(std::move(path)) {
  if (!is_special(path_)) {
    clean_directory_once(path_);
    tmp_ = path_ + ".tmp." + std::to_string(::getpid());
  }
  const std::string& target = tmp_.empty() ? path_ : tmp_;
  fd_ = ::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  HEED_CHECK(fd_ >= 0, path_, ": cannot open for writing (", std::strerror(errno), ")");
  buffer_ = std::make_unique<Buffer>(fd_);
  out_.rdbuf(buffer_.get());
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (committed_ || tmp_.empty()) return;
  std::error_code ec;
  fs::remove(tmp_, ec);
}

void AtomicFile::commit() {
  out_.flush();
  int err = buffer_->error();
  if (err == 0 && !out_.good()) err = EIO;
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && err == 0) err = errno;  // NFS reports some write errors only here
  HEED_CHECK(err == 0, path_, ": cannot write (", std::strerror(err), ")");
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
