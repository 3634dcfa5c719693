#pragma once
// Where a command's text output goes: standard output when no --output file is given,
// otherwise the file, written atomically (data/text_file.h: a temporary file renamed, so it
// is never half-written; devices and FIFOs are written directly).
#include <cstdio>
#include <string>
#include <vector>

#include "heed/data/text_file.h"

namespace heed::cli {

inline void write_output_lines(const std::string& path, const std::vector<std::string>& lines) {
  if (!path.empty()) {
    write_lines(path, lines);
    return;
  }
  std::string text;
  for (const auto& l : lines) (text += l) += '\n';
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

}  // namespace heed::cli
