#pragma once
// heed translate: translate raw sentences with a trained model or an ensemble
// (docs/cli/translate.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_translate_command();
}
