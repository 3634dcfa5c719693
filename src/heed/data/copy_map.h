#pragma once
// CopyMap: where copy attention (docs/MODELS.md#copy-attention) puts each source position's
// attention weight, over the target vocabulary extended by the sentence's own source words.
// Source and target have separate vocabularies, so a source word is matched by its string:
// source position j holds the target id of the same piece, or the extended id V + k for the
// k-th distinct piece of the sentence that the target vocabulary lacks (V = its size), in
// order of first appearance. A source EOS maps to the target EOS.
#include <cstdint>
#include <string>
#include <vector>

#include "heed/data/vocabulary.h"

namespace heed {

struct CopyMap {
  std::vector<std::int32_t> source;  // an extended id per source position (EOS included)
  std::vector<std::string> words;    // extended id V + k is words[k]
};

// The map of a source sentence's pieces (before any EOS); with_eos appends the EOS position.
CopyMap make_copy_map(const std::vector<std::string>& src_pieces, bool with_eos,
                      const Vocabulary& tgt_vocab);

// A target sentence's ids over the extended vocabulary, EOS appended: each piece's target id;
// for a piece the target vocabulary lacks, its extended id when the source holds it, else UNK.
std::vector<std::int32_t> extended_targets(const std::vector<std::string>& tgt_pieces,
                                           const CopyMap& map, const Vocabulary& tgt_vocab);

// The pieces of output ids over the extended vocabulary, as Vocabulary::decode gives them
// (PAD, BOS and EOS left out, stopping at the first EOS): extended ids become their source words.
std::vector<std::string> decode_extended(const std::vector<std::int32_t>& ids,
                                         const Vocabulary& tgt_vocab,
                                         const std::vector<std::string>& words);

}  // namespace heed
