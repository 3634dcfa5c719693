#pragma once
// The reverse task of the learning tests: random sequences of symbols, each to be written
// back in reverse order. One batch holds the padded source, the decoder's input (BOS, then
// the reversed sequence), its targets (the reversed sequence, then EOS) and the references.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "heed/base/random.h"
#include "heed/models/token_batch.h"

namespace heed::testing {

struct ReverseTask {
  std::int32_t first_symbol = 4;  // symbols are first_symbol .. first_symbol + symbols - 1
  std::int32_t symbols = 10;
  std::int64_t min_len = 3, max_len = 8;
  constexpr std::int32_t vocab() const { return first_symbol + symbols; }
};

struct ReversePairs {
  TokenBatch src, tgt_in;
  std::vector<std::int32_t> tgt_out;
  std::vector<std::vector<std::int32_t>> reference;  // the reversed sequences
};

// B sequences with lengths uniform in [min_len, max_len] and symbols uniform, drawn from rng.
inline ReversePairs reverse_batch(const ReverseTask& task, std::int64_t B, Rng& rng) {
  std::vector<std::vector<std::int32_t>> seqs;
  std::int64_t m = 0;
  for (std::int64_t b = 0; b < B; ++b) {
    const auto len =
        task.min_len + static_cast<std::int64_t>(rng.below(task.max_len - task.min_len + 1));
    std::vector<std::int32_t> s;
    for (std::int64_t i = 0; i < len; ++i)
      s.push_back(task.first_symbol + static_cast<std::int32_t>(rng.below(task.symbols)));
    m = std::max(m, len);
    seqs.push_back(s);
  }
  ReversePairs p;
  p.src = {B, m, std::vector<std::int32_t>(B * m, kPad), {}};
  p.tgt_in = {B, m + 1, std::vector<std::int32_t>(B * (m + 1), kPad), {}};
  p.tgt_out.assign(B * (m + 1), kPad);
  for (std::int64_t b = 0; b < B; ++b) {
    const auto& s = seqs[b];
    const auto len = static_cast<std::int64_t>(s.size());
    std::vector<std::int32_t> r(s.rbegin(), s.rend());
    p.src.lengths.push_back(len);
    p.tgt_in.lengths.push_back(len + 1);
    p.tgt_in.ids[b * (m + 1)] = kBos;
    for (std::int64_t i = 0; i < len; ++i) {
      p.src.ids[b * m + i] = s[i];
      p.tgt_in.ids[b * (m + 1) + i + 1] = r[i];
      p.tgt_out[b * (m + 1) + i] = r[i];
    }
    p.tgt_out[b * (m + 1) + len] = kEos;
    p.reference.push_back(r);
  }
  return p;
}

}  // namespace heed::testing
