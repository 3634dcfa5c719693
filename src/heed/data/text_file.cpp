#include "heed/data/text_file.h"

#include "heed/base/atomic_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "heed/base/error.h"
#include "heed/base/utf8.h"

namespace heed {
namespace {

std::string read_all(const std::string& path) {
  std::error_code ec;
  HEED_CHECK(!std::filesystem::is_directory(path, ec), path, ": is a directory, expected a text file");
  std::ifstream in(path, std::ios::binary);
  HEED_CHECK(in, path, ": cannot open for reading (", std::strerror(errno), ")");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  HEED_CHECK(!in.bad(), path, ": read error");
  return std::move(buffer).str();
}

}  // namespace

std::vector<std::string> read_lines(const std::string& path) {
  std::string text = read_all(path);
  std::string_view view(text);
  // Columns count bytes of the file, so a skipped byte order mark still counts on line 1.
  std::size_t bom = view.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  view.remove_prefix(bom);
  HEED_CHECK(!view.empty(), path, ": file is empty, expected one sentence per line");
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < view.size()) {
    std::size_t end = view.find('\n', start);
    std::size_t next = end == std::string_view::npos ? view.size() : end + 1;
    if (end == std::string_view::npos) end = view.size();
    std::string_view line = view.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t bad = find_invalid_utf8(line);
    HEED_CHECK(bad == std::string_view::npos, path, ":", lines.size() + 1, ":",
               bad + 1 + (lines.empty() ? bom : 0),
               ": invalid UTF-8 (byte 0x", std::hex,
               static_cast<unsigned>(static_cast<unsigned char>(line[bad == std::string_view::npos ? 0 : bad])),
               std::dec, "); the file must be UTF-8 text");
    lines.emplace_back(line);
    start = next;
  }
  return lines;
}

ParallelText read_parallel(const std::string& source_path, const std::string& target_path) {
  ParallelText text;
  text.source = read_lines(source_path);
  text.target = read_lines(target_path);
  HEED_CHECK(text.source.size() == text.target.size(), "parallel files differ in length: ",
             source_path, " has ", text.source.size(), " lines but ", target_path, " has ",
             text.target.size(), " lines; line i of one must translate line i of the other");
  return text;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  AtomicFile file(path);
  for (const auto& line : lines) file.stream() << line << '\n';
  file.commit();
}

}  // namespace heed
