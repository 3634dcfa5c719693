#pragma once
// heed plot: attention heat maps (SVG) and an index page from an attention-JSON file
// (docs/cli/plot.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_plot_command();
}
