#pragma once
// A trained memory network answering questions (heed eval, heed show, the live page): for each
// question the predicted word, its probability and every hop's attention over the story's
// statements, and whether the attention found a supporting fact.
#include <cstdint>
#include <vector>

#include "heed/data/babi_encoding.h"
#include "heed/models/memory_network.h"

namespace heed {

struct AnsweredQuestion {
  std::int32_t predicted = 0;     // the vocabulary id of the answer
  double probability = 0.0;       // its softmax probability
  double answer_probability = 0.0;  // the probability of the reference answer
  // The statements the memory held: story[first], ..., story[first + attention[k].size() - 1].
  std::size_t first = 0;
  std::vector<std::vector<double>> attention;  // K hops x the statements held
  // Whether the most attended statement of some hop is a supporting fact (false when the
  // question names none).
  bool attention_found_support = false;
};

// Answers every question, in batches of `batch`, the model in eval mode and no tape.
std::vector<AnsweredQuestion> answer_questions(const MemoryNetwork& model,
                                               const std::vector<EncodedQuestion>& questions,
                                               std::int64_t batch = 64);

}  // namespace heed
