#pragma once
// RankFailure: an error on one rank of a data-parallel run after training began, while the
// other ranks go on into the next collective and would wait for this one for ever
// (docs/DISTRIBUTED.md, "When a rank fails"). `heed train` writes its message and ends the
// whole run with World::abort(exit_code()) instead of finishing MPI.
#include <string>

#include "heed/base/error.h"

namespace heed::dist {

class RankFailure : public Error {
 public:
  RankFailure(const std::string& what, int exit_code) : Error(what), exit_code_(exit_code) {}
  int exit_code() const { return exit_code_; }  // 1 runtime error, 2 usage error, as `heed`'s

 private:
  int exit_code_;
};

}  // namespace heed::dist
