#pragma once
// heed eval for model.kind las (docs/cli/eval.md#speech): transcribes every utterance of a .tsv
// manifest (greedy or beam search; one model or an ensemble) and prints the string error (the
// utterances whose transcript differs from the reference) and the word error rate (for digit
// strings, the digit error), each with a 95% bootstrap interval; optionally each utterance's
// transcript as JSON lines.
#include <cstdint>
#include <string>
#include <vector>

#include "heed/translate/ensemble_members.h"

namespace heed::cli {

struct SpeechEval {
  std::vector<ModelSpec> models;  // one, or an ensemble's members
  std::string manifest;
  std::string output;  // --attention FILE is not drawn for speech; JSON lines of the outputs
  std::int64_t beam = 1, max_len = 0, batch = 32, samples = 1000;
  std::string window;  // --attention-window L,R ("" = off)
  double ctc_weight = 0.0;  // --ctc-weight: CTC rescoring of the beam (0 = off)
  std::uint64_t seed = 1234;
};

int eval_speech(const SpeechEval& options);

}  // namespace heed::cli
