#pragma once
// Hypothesis and DecodeResult: what greedy_decode and beam_search return.
#include <cstdint>
#include <vector>

#include "heed/tensor/tensor.h"

namespace heed {

struct Hypothesis {
  // Output token ids up to and including EOS (if the hypothesis emitted one before the step
  // limit); the PAD continuation of a finished hypothesis is not included, and BOS never is.
  std::vector<std::int32_t> tokens;
  double score = 0.0;        // raw_score / lp(length) (see LengthNorm)
  double raw_score = 0.0;    // sum of the tokens' log-probabilities
  std::int64_t length = 0;   // |y| = tokens.size(), EOS counted
  // (length, source length): row t is the attention the model computed while emitting
  // tokens[t], over the sentence's real source positions only (padding columns dropped).
  // Undefined when the model has no attention. Same dtype as the model's outputs.
  Tensor attention;
  // Copy attention (model.copy): p_gen of each token, the probability the model gave to
  // generating it from the vocabulary rather than copying from the source; empty otherwise.
  // A token >= the target vocabulary's size was copied (an extended id, data/copy_map.h).
  std::vector<float> p_gen;
};

struct DecodeResult {
  // nbest[b][i]: sentence b's i-th best hypothesis, best first (greedy: one each).
  std::vector<std::vector<Hypothesis>> nbest;
  std::int64_t steps = 0;  // decoder steps run for the whole batch

  const Hypothesis& best(std::size_t sentence) const { return nbest.at(sentence).front(); }
};

}  // namespace heed
