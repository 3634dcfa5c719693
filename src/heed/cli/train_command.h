#pragma once
// heed train: train a model from a YAML config, or resume one (docs/cli/train.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_train_command();
}
