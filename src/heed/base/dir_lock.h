#pragma once
// DirLock: an exclusive lock on a directory that a command writes (a model directory), so
// two writers never interleave their files. It is an flock(2) on the file .heed.lock inside
// the directory, which holds the holder's process id for the message a refused writer
// prints. The kernel drops the lock when its holder exits, however it exits (kill -9
// included), so a lock file left by a dead process is simply taken over; the file is
// removed when the lock is released normally. Other processes on the same machine only:
// flock is not reliable over every network file system.
#include <string>

namespace heed {

class DirLock {
 public:
  // The lock file's name inside the directory.
  static constexpr const char* kFileName = ".heed.lock";

  DirLock() = default;
  // Locks dir (which must exist), or throws heed::Error naming dir and the holder's pid
  // ("<dir>: in use by another heed process (pid 1234) ..."). what names the caller's
  // activity in that message ("training").
  explicit DirLock(const std::string& dir, const std::string& what = "writing");
  ~DirLock();
  DirLock(DirLock&& other) noexcept;
  DirLock& operator=(DirLock&& other) noexcept;
  DirLock(const DirLock&) = delete;
  DirLock& operator=(const DirLock&) = delete;

  bool held() const { return fd_ >= 0; }
  // Removes the lock file and releases the lock (also done by the destructor).
  void release();

 private:
  std::string path_;  // the lock file
  int fd_ = -1;
};

}  // namespace heed
