#pragma once
// A tiny Bahdanau model on the word-reversal task, trained through the public heed::Trainer
// into a temporary directory: what the API tests translate with. 40 steps, about a second.
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace heed::testing {

// The config's YAML for the word-reversal task in dir (max_steps steps, validating every 10).
inline std::string reversal_config(const ScratchDir& dir, int max_steps = 40) {
  return write_reversal_task(dir.path()) +
         "model:\n"
         "  kind: bahdanau\n"
         "  emb_dim: 8\n"
         "  enc_hidden: 12\n"
         "  dec_hidden: 12\n"
         "training:\n"
         "  lr: 0.01\n"
         "  max_tokens: 200\n"
         "  max_steps: " + std::to_string(max_steps) + "\n"
         "  validate_every: 10\n"
         "output: " + dir.path("model") + "\n";
}

// Ten sources of the task's kind (letters a-h), one empty.
inline std::vector<std::string> reversal_sources() {
  return {"abc", "hgfe", "", "dead", "cafe", "bead", "faced", "ahh", "gab", "feed"};
}

}  // namespace heed::testing
