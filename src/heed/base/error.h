#pragma once
// heed::Error: the one exception type for user mistakes and runtime failures
// (bad files, bad configs, shape mismatches), and UsageError, a mistake on the command line
// or in a config found after parsing (the CLI exits with code 2 for it). Both are part of the
// public API (include/heed/error.h); this header adds HEED_CHECK for heed's own code.
#include <sstream>
#include <string>
#include <utility>

#include "heed/error.h"

namespace heed {

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
