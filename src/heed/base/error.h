#pragma once
// heed::Error: the one exception type for user mistakes and runtime failures
// (bad files, bad configs, shape mismatches). The CLI prints what() and exits non-zero.
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace heed {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// A mistake on the command line or in a config that is found after parsing (an option
// against another, a config key against the model kind): the CLI exits with code 2 for it,
// as for the errors its parser finds.
class UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(what) {}
};

namespace detail {
template <typename... Args>
std::string concat(Args&&... args) {
  std::ostringstream os;
  (os << ... << std::forward<Args>(args));
  return os.str();
}
}  // namespace detail

// Throws heed::Error with the streamed arguments as message when cond is false.
#define HEED_CHECK(cond, ...)                                        \
  do {                                                               \
    if (!(cond)) throw ::heed::Error(::heed::detail::concat(__VA_ARGS__)); \
  } while (0)

}  // namespace heed
