#pragma once
// heed show: per sentence of an input file, the attention and saliency maps side by side as
// SVG and PNG, and one self-contained HTML report of them all (docs/cli/show.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_show_command();
}
