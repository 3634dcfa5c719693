#include "heed/data/copy_map.h"

#include <algorithm>

#include "heed/base/error.h"

namespace heed {

CopyMap make_copy_map(const std::vector<std::string>& src_pieces, bool with_eos,
                      const Vocabulary& tgt_vocab) {
  const auto V = static_cast<std::int32_t>(tgt_vocab.size());
  CopyMap map;
  map.source.reserve(src_pieces.size() + 1);
  for (const std::string& piece : src_pieces) {
    const std::int32_t id = tgt_vocab.id(piece);
    if (id >= Vocabulary::kSpecials) {
      map.source.push_back(id);
      continue;
    }
    // Absent from the target vocabulary (or spelled like a special): an extended word.
    const auto at = std::find(map.words.begin(), map.words.end(), piece);
    map.source.push_back(V + static_cast<std::int32_t>(at - map.words.begin()));
    if (at == map.words.end()) map.words.push_back(piece);
  }
  if (with_eos) map.source.push_back(Vocabulary::kEos);
  return map;
}

std::vector<std::int32_t> extended_targets(const std::vector<std::string>& tgt_pieces,
                                           const CopyMap& map, const Vocabulary& tgt_vocab) {
  const auto V = static_cast<std::int32_t>(tgt_vocab.size());
  std::vector<std::int32_t> ids;
  ids.reserve(tgt_pieces.size() + 1);
  for (const std::string& piece : tgt_pieces) {
    std::int32_t id = tgt_vocab.id(piece);
    if (id < Vocabulary::kSpecials) {
      const auto at = std::find(map.words.begin(), map.words.end(), piece);
      id = at == map.words.end() ? Vocabulary::kUnk
                                 : V + static_cast<std::int32_t>(at - map.words.begin());
    }
    ids.push_back(id);
  }
  ids.push_back(Vocabulary::kEos);
  return ids;
}

std::vector<std::string> decode_extended(const std::vector<std::int32_t>& ids,
                                         const Vocabulary& tgt_vocab,
                                         const std::vector<std::string>& words) {
  const auto V = static_cast<std::int32_t>(tgt_vocab.size());
  std::vector<std::string> out;
  for (std::int32_t id : ids) {
    if (id == Vocabulary::kEos) break;
    if (id < V) {
      if (id == Vocabulary::kPad || id == Vocabulary::kBos) continue;
      out.push_back(tgt_vocab.token(id));
      continue;
    }
    const auto k = static_cast<std::size_t>(id - V);
    HEED_CHECK(k < words.size(), "copy: output id ", id, " is past the ", words.size(),
               " source words of the sentence's extended vocabulary (target vocabulary ", V, ")");
    out.push_back(words[k]);
  }
  return out;
}

}  // namespace heed
