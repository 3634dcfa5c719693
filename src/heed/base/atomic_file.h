#pragma once
// AtomicFile: the one way heed writes a file, so that a failure or an interruption never
// leaves a half-written one. Data goes to a temporary file beside the target, which
// commit() renames into place; a file not committed is removed. A path that already names
// something other than a regular file (/dev/null, /dev/stdout, a FIFO) is written
// directly instead: renaming over it would replace the device with a plain file.
#include <fstream>
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
  // Flushes, checks for write errors (heed::Error naming the path) and moves the file into place.
  void commit();

 private:
  std::string path_, tmp_;  // tmp_ empty when writing directly
  std::ofstream out_;
  bool committed_ = false;
};

// Writes content to path through an AtomicFile.
void write_file_atomically(const std::string& path, std::string_view content);

}  // namespace heed
