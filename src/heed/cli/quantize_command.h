#pragma once
// heed quantize: a model directory whose weights are stored as int8 with per-row scales
// (docs/cli/quantize.md, store/quantized_weights.h).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_quantize_command();
}
