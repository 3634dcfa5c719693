#pragma once
// Reading plain UTF-8 text, one sentence per line: a single file (translation input) or
// a pair of line-aligned files (training data). Every problem is a heed::Error naming the
// file and, where it applies, the line and byte column.
#include <string>
#include <vector>

namespace heed {

// Lines of a UTF-8 text file, without their line endings. "\n" and "\r\n" both end a
// line, the last line needs no newline, and a UTF-8 byte order mark at the very start is
// skipped. Throws heed::Error when the file cannot be read, is empty (no bytes at all)
// or holds invalid UTF-8 ("path:line:column: invalid UTF-8", column = 1-based byte).
std::vector<std::string> read_lines(const std::string& path);

// Two files whose line i are translations of each other.
struct ParallelText {
  std::vector<std::string> source;
  std::vector<std::string> target;
  std::size_t size() const { return source.size(); }
};

// Reads both files with read_lines and checks that they have the same number of lines
// (the error names both files and both counts).
ParallelText read_parallel(const std::string& source_path, const std::string& target_path);

// Writes lines joined by "\n" (with a final newline) to a temporary file next to path,
// then renames it, so a failure never leaves a half-written file.
void write_lines(const std::string& path, const std::vector<std::string>& lines);

}  // namespace heed
