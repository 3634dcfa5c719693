#pragma once
// heed transcribe: WAV files to text with a speech model (model.kind las; docs/cli/transcribe.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_transcribe_command();
}
