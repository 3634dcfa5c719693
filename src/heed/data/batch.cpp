#include "heed/data/batch.h"

#include <algorithm>

#include "heed/base/error.h"
#include "heed/data/vocabulary.h"

namespace heed {

Batch make_batch(const Corpus& corpus, const std::vector<std::size_t>& members) {
  HEED_CHECK(!members.empty(), "a batch needs at least one sentence");
  Batch b;
  b.size = members.size();
  b.members = members;
  const bool with_target = corpus.has_target();
  for (std::size_t k : members) {
    HEED_CHECK(k < corpus.size(), "corpus position ", k, " out of range (size ", corpus.size(), ")");
    b.src_len = std::max(b.src_len, corpus.src[k].size());
    if (with_target) b.tgt_len = std::max(b.tgt_len, corpus.tgt[k].size());
  }
  b.src.assign(b.size * b.src_len, Vocabulary::kPad);
  b.tgt_in.assign(b.size * b.tgt_len, Vocabulary::kPad);
  b.tgt_out.assign(b.size * b.tgt_len, Vocabulary::kPad);
  const bool copy = corpus.has_copy();
  if (copy) {
    b.src_copy.assign(b.size * b.src_len, Vocabulary::kPad);
    if (with_target) b.tgt_copy.assign(b.size * b.tgt_len, Vocabulary::kPad);
  }
  b.src_lengths.reserve(b.size);
  b.tgt_lengths.reserve(b.size);
  b.indices.reserve(b.size);
  for (std::size_t r = 0; r < b.size; ++r) {
    std::size_t k = members[r];
    const auto& s = corpus.src[k];
    std::copy(s.begin(), s.end(), b.src.begin() + static_cast<std::ptrdiff_t>(r * b.src_len));
    b.src_lengths.push_back(static_cast<std::int32_t>(s.size()));
    b.src_tokens += s.size();
    b.indices.push_back(corpus.index[k]);
    if (copy) {
      const CopyMap& map = corpus.copy[k];
      std::copy(map.source.begin(), map.source.end(),
                b.src_copy.begin() + static_cast<std::ptrdiff_t>(r * b.src_len));
      b.extended = std::max(b.extended, static_cast<std::int64_t>(map.words.size()));
      if (with_target)
        std::copy(corpus.tgt_copy[k].begin(), corpus.tgt_copy[k].end(),
                  b.tgt_copy.begin() + static_cast<std::ptrdiff_t>(r * b.tgt_len));
    }
    if (!with_target) continue;
    const auto& t = corpus.tgt[k];
    auto in = b.tgt_in.begin() + static_cast<std::ptrdiff_t>(r * b.tgt_len);
    auto out = b.tgt_out.begin() + static_cast<std::ptrdiff_t>(r * b.tgt_len);
    std::copy(t.begin(), t.end(), out);
    if (!t.empty()) {
      in[0] = Vocabulary::kBos;
      std::copy(t.begin(), t.end() - 1, in + 1);
    }
    b.tgt_lengths.push_back(static_cast<std::int32_t>(t.size()));
    b.tgt_tokens += t.size();
  }
  return b;
}

}  // namespace heed
