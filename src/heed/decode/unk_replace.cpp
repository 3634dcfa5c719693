#include "heed/decode/unk_replace.h"

#include "heed/base/error.h"
#include "heed/models/seq2seq.h"

namespace heed {

std::vector<std::int64_t> unk_source_positions(const Hypothesis& hyp) {
  std::vector<std::int64_t> pos(hyp.tokens.size(), -1);
  bool any = false;
  for (auto t : hyp.tokens) any = any || t == kUnk;
  if (!any) return pos;
  HEED_CHECK(hyp.attention.defined(), "UNK replacement needs a model with attention");
  const Tensor a = hyp.attention.contiguous();
  HEED_CHECK(a.ndim() == 2 && a.dim(0) == static_cast<std::int64_t>(hyp.tokens.size()) && a.dim(1) >= 1,
             "UNK replacement: attention of shape ", a.shape().str(), " for ", hyp.tokens.size(),
             " tokens");
  const std::int64_t m = a.dim(1);
  dispatch(a.dtype(), [&]<typename T>() {
    const T* w = a.data<T>();
    for (std::size_t t = 0; t < hyp.tokens.size(); ++t) {
      if (hyp.tokens[t] != kUnk) continue;
      const T* row = w + static_cast<std::int64_t>(t) * m;
      std::int64_t best = 0;
      for (std::int64_t j = 1; j < m; ++j)
        if (row[j] > row[best]) best = j;
      pos[t] = best;
    }
  });
  return pos;
}

std::vector<std::string> replace_unks(const Hypothesis& hyp,
                                      std::span<const std::string> target_words,
                                      std::span<const std::string> source_words) {
  HEED_CHECK(target_words.size() <= hyp.tokens.size(), "replace_unks: ", target_words.size(),
             " words for ", hyp.tokens.size(), " tokens");
  const std::vector<std::int64_t> pos = unk_source_positions(hyp);
  std::vector<std::string> out(target_words.begin(), target_words.end());
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (pos[i] < 0) continue;
    HEED_CHECK(static_cast<std::size_t>(pos[i]) < source_words.size(), "replace_unks: source position ",
               pos[i], " but only ", source_words.size(), " source words");
    out[i] = source_words[static_cast<std::size_t>(pos[i])];
  }
  return out;
}

}  // namespace heed
