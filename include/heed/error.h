#pragma once
// heed::Error: what every heed function throws for a user mistake or a runtime failure (a
// missing or malformed file, a bad config key, a sentence the model cannot take). what()
// names the file, line or key and what was expected. heed::UsageError, a kind of Error, is
// a mistake in options or a config found after parsing (the `heed` command exits 2 for it).
#include <stdexcept>
#include <string>

#include "heed/export.h"

namespace heed {

class HEED_API Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

class HEED_API UsageError : public Error {
 public:
  explicit UsageError(const std::string& what) : Error(what) {}
};

}  // namespace heed
