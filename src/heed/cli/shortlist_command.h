#pragma once
// heed shortlist: a vocabulary shortlist learned from a parallel text (docs/cli/shortlist.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_shortlist_command();
}
