#pragma once
// heed score: corpus metrics of a hypothesis file against references (docs/cli/score.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_score_command();
}
