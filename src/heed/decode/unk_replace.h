#pragma once
// UNK replacement (Luong et al. 2015): an output UNK is replaced by the source word it
// attended to most.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "heed/decode/hypothesis.h"

namespace heed {

// One entry per token of hyp: -1, or for a token equal to kUnk the source position with the
// largest attention weight at that step (the first one on ties). Throws heed::Error when the
// hypothesis contains UNK but has no attention.
std::vector<std::int64_t> unk_source_positions(const Hypothesis& hyp);

// target_words[i] is the text of hyp.tokens[i] (it may be shorter, e.g. without the EOS);
// returns target_words with every UNK replaced by source_words[its source position].
std::vector<std::string> replace_unks(const Hypothesis& hyp,
                                      std::span<const std::string> target_words,
                                      std::span<const std::string> source_words);

}  // namespace heed
