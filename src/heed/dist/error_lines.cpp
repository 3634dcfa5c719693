#include "heed/dist/error_lines.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>

namespace heed::dist {

int launched_rank() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* value = std::getenv(v)) {
      char* end = nullptr;
      const long r = std::strtol(value, &end, 10);
      if (end != value && *end == '\0' && r >= 0 && r <= INT_MAX) return static_cast<int>(r);
    }
  return -1;
}

void write_error_lines(const std::string& text) {
  const int rank = launched_rank();
  std::string out;
  if (rank < 0) {
    out = text;
  } else {
    const std::string prefix = "rank " + std::to_string(rank) + ": ";
    for (std::size_t start = 0; start < text.size();) {
      const std::size_t end = text.find('\n', start);
      const std::size_t stop = end == std::string::npos ? text.size() : end + 1;
      out += prefix + text.substr(start, stop - start);
      start = stop;
    }
  }
  if (out.empty() || out.back() != '\n') out += '\n';
  // One call: a pipe or terminal takes a write of up to PIPE_BUF bytes whole; a longer one
  // is continued only where write(2) returns short.
  for (std::size_t done = 0; done < out.size();) {
    const ssize_t n = ::write(STDERR_FILENO, out.data() + done, out.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace heed::dist
