#pragma once
// heed import: a PyTorch state_dict (safetensors) and a training config become a model
// directory (docs/cli/import.md, docs/INTEROP.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_import_command();
}
