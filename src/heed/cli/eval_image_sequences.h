#pragma once
// heed eval for model.kind image2seq (docs/cli/eval.md#image-to-sequence): decodes every test
// image (greedy or beam search), prints the sequence accuracy (the decoded class names equal
// the target's) with a 95% bootstrap interval and the accuracy by the number of items, and
// writes each image's words and grid attention as JSON lines on request.
#include <cstdint>
#include <string>

namespace heed::cli {

struct ImageSequenceEval {
  std::string model_dir, weights, images, targets;
  std::string attention;  // --attention FILE: JSON lines, one per image; empty = none
  std::int64_t beam = 1, max_len = 20, batch = 256, samples = 1000;
  std::uint64_t seed = 1234;
};

int eval_image_sequences(const ImageSequenceEval& options);

}  // namespace heed::cli
