#pragma once
// heed data: prepares training data; `heed data g2p` splits a pronunciation dictionary
// (CMUdict or the user's) into train/dev/test files, `heed data images` generates image sets,
// `heed data aeslc` reads the email subject line corpus, `heed data digits` makes
// connected-digit utterances (docs/cli/data.md).
#include "heed/cli/command.h"

namespace heed::cli {
std::unique_ptr<Command> make_data_command();
}
