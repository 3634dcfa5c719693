#pragma once
// heed info: what a model directory holds (docs/cli/info.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_info_command();
}
