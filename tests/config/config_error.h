#pragma once
// The message of the heed::Error that parsing a config throws ("" if none), for the config tests.
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/config/train_config.h"

namespace heed {

inline std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  try {
    parse_train_config(yaml, "cfg.yaml", sets);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace heed
