#pragma once
// heed align: align given sentence pairs by forced decoding (docs/cli/align.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_align_command();
}
