#pragma once
// heed serve: a trained model behind HTTP, with a live page (docs/cli/serve.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_serve_command();
}
