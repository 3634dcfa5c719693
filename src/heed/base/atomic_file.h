#pragma once
// AtomicFile: the one way heed writes a file, so that a failure or an interruption never
// leaves a half-written one. Data goes to a temporary file beside the target, which
// commit() renames into place; a file not committed is removed. A path that already names
// something other than a regular file (/dev/null, /dev/stdout, a FIFO) is written
// directly instead: renaming over it would replace the device with a plain file.
//
// The temporary file is named <path>.tmp.<pid>. A process killed while writing (kill -9,
// power loss) leaves it behind, so the first AtomicFile a process opens in a directory
// removes that directory's temporaries whose pid is no longer running
// (remove_stale_temporaries).
//
// A failed write (a full disk, a quota, an I/O error) is remembered with its cause, and
// commit() reports it ("<path>: cannot write (No space left on device)") instead of moving
// the incomplete file into place.
#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>

namespace heed {

class AtomicFile {
 public:
  explicit AtomicFile(std::string path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  // Flushes, checks for write errors (heed::Error naming the path and the cause) and moves
  // the file into place.
  void commit();

 private:
  class Buffer;  // the stream's buffer over fd_; keeps the errno of the first failed write
  std::string path_, tmp_;  // tmp_ empty when writing directly
  int fd_ = -1;
  std::unique_ptr<Buffer> buffer_;
  std::ostream out_{nullptr};
  bool committed_ = false;
};

// Writes content to path through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view content);

// Removes the regular files in dir named <name>.tmp.<pid> whose pid is not a running
// process (never this process's own), and returns how many. Best effort: an unreadable
// directory or a file that cannot be removed is left alone. A pid reused since by an
// unrelated process keeps its file until that process ends, which errs on the safe side.
std::size_t remove_stale_temporaries(const std::string& dir);

}  // namespace heed
