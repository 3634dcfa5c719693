#include "heed/cli/command.h"

namespace heed::cli {

std::vector<std::unique_ptr<Command>> all_commands() {
  std::vector<std::unique_ptr<Command>> c;
  return c;
}

}  // namespace heed::cli
