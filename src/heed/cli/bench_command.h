#pragma once
// heed bench: the fixed CPU benchmark protocol of the PyTorch reference (docs/cli/bench.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_bench_command();
}
