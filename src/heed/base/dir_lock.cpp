#include "heed/base/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>

#include "heed/base/error.h"

namespace heed {
namespace {

// The pid written in the lock file open as fd, or "" when there is none yet (the holder
// has locked it but not yet written its pid: retried briefly).
std::string holder_pid(int fd) {
  for (int attempt = 0; attempt < 20; ++attempt) {
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    if (n > 0) {
      std::string s(buf, static_cast<std::size_t>(n));
      while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
      if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos) return s;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return {};
}

}  // namespace

DirLock::DirLock(const std::string& dir, const std::string& what)
    : path_(dir + "/" + kFileName) {
  // A releasing holder removes the file while still holding the lock; a process that opened
  // the old file just before that would then lock a file no longer in the directory. So after
  // locking, check that the path still names the locked file, and start again if not.
  for (;;) {
    const int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    HEED_CHECK(fd >= 0, dir, ": cannot create the lock file ", kFileName, " (",
               std::strerror(errno), ")");
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      const std::string pid = err == EWOULDBLOCK ? holder_pid(fd) : "";
      ::close(fd);
      HEED_CHECK(err != EWOULDBLOCK, dir, ": in use by another heed process (",
                 pid.empty() ? "pid unknown" : "pid " + pid, ") that is writing it; ", what,
                 " here at the same time would mix both runs' files. Wait for it to finish, "
                 "stop it, or use another directory");
      throw Error(dir + ": cannot lock " + kFileName + " (" + std::strerror(err) + ")");
    }
    struct stat held {}, named {};
    if (::fstat(fd, &held) == 0 && ::stat(path_.c_str(), &named) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino) {
      fd_ = fd;
      break;
    }
    ::close(fd);
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 ||
      ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const int err = errno;
    release();
    throw Error(dir + ": cannot write the lock file " + kFileName + " (" + std::strerror(err) +
                ")");
  }
}

DirLock::~DirLock() { release(); }

DirLock::DirLock(DirLock&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) {
  other.fd_ = -1;
}

DirLock& DirLock::operator=(DirLock&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

void DirLock::release() {
  if (fd_ < 0) return;
  // Removed before unlocking, so the next holder creates a fresh file (see the constructor).
  ::unlink(path_.c_str());
  ::close(fd_);
  fd_ = -1;
}

}  // namespace heed
