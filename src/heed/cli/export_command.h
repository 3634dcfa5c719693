#pragma once
// heed export: a model directory's weights and config as one PyTorch-readable safetensors
// file (docs/cli/export.md, docs/INTEROP.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_export_command();
}
