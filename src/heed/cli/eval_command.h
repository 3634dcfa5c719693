#pragma once
// heed eval: the test error of an image model (model.kind ram) with a bootstrap interval,
// per-class accuracy and, on request, every image's glimpse locations (docs/cli/eval.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_eval_command();
}
