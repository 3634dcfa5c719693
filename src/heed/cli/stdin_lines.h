#pragma once
// Standard input as lines, validated like a file (data/text_file.h read_lines): "\r\n" or
// "\n" ends a line, a byte order mark at the start is skipped, invalid UTF-8 is an error
// naming "<stdin>:line:column". Used by `heed translate` and `heed show --input -`.
#include <iostream>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/base/utf8.h"

namespace heed::cli {

inline std::vector<std::string> read_stdin_lines() {
  std::vector<std::string> lines;
  std::string line;
  std::size_t n = 0;
  while (std::getline(std::cin, line)) {
    ++n;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (n == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // byte order mark
    const std::size_t bad = find_invalid_utf8(line);
    HEED_CHECK(bad == std::string::npos, "<stdin>:", n, ":", bad + 1,
               ": invalid UTF-8; the input must be UTF-8 text");
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace heed::cli
