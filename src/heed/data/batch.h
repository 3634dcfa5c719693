#pragma once
// Batch: a padded mini-batch of sentence pairs in the layout the models take (batch-first,
// row-major int32, PAD = 0): src (B, m), tgt_in = BOS y_1..y_{n-1} and tgt_out = y_1..y_n
// (B, n), where m and n are the batch's longest source and target.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "heed/data/corpus.h"

namespace heed {

struct Batch {
  std::size_t size = 0;     // B
  std::size_t src_len = 0;  // m
  std::size_t tgt_len = 0;  // n (0 for a source-only corpus)
  std::vector<std::int32_t> src;          // (B, m)
  std::vector<std::int32_t> src_lengths;  // (B)
  std::vector<std::int32_t> tgt_in;       // (B, n)
  std::vector<std::int32_t> tgt_out;      // (B, n)
  std::vector<std::int32_t> tgt_lengths;  // (B)
  // Copy attention (a corpus with copy maps, data/copy_map.h): each source position's
  // extended id (B, m), the targets over the extended vocabulary (B, n), and the most
  // extended words of any row (ids V .. V + extended - 1). Empty and 0 otherwise.
  std::vector<std::int32_t> src_copy;
  std::vector<std::int32_t> tgt_copy;
  std::int64_t extended = 0;
  std::size_t src_tokens = 0;  // real (non-PAD) source tokens
  std::size_t tgt_tokens = 0;  // real target tokens (the loss counts these)
  std::vector<std::size_t> indices;  // line number of each row in the input files
  std::vector<std::size_t> members;  // position of each row in the corpus
  // Size under the token budget: B * max(m, n), as Joey NMT's token batches count it.
  std::size_t padded_tokens() const { return size * (src_len > tgt_len ? src_len : tgt_len); }
};

// Pads the given corpus entries (positions in the corpus) into a batch, in that order.
Batch make_batch(const Corpus& corpus, const std::vector<std::size_t>& members);

}  // namespace heed
