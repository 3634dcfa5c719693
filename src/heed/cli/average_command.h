#pragma once
// heed average: the mean of a model directory's last step checkpoints (docs/cli/average.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_average_command();
}
