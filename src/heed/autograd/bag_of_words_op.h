#pragma once
// The memory network's sentence embedding on the tape (docs/MODELS.md#memory-network): rows of
// word ids become position-weighted sums of a table's rows plus a temporal row
// (kernels/bag_of_words.h), gradients scattered back into both tables.
#include <cstdint>
#include <memory>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/kernels/bag_of_words.h"

namespace heed {

// Rows of word ids, padded with PAD (0) after each row's length; a row of length 0 (an empty
// memory slot) embeds to zeros, its temporal row not added.
struct WordRowBatch {
  std::int64_t rows = 0, width = 0;
  std::vector<std::int32_t> ids;      // rows x width
  std::vector<std::int32_t> lengths;  // rows, each in [0, width]
  std::vector<std::int32_t> time;     // rows: the temporal table's row, or -1; empty: none
  kernels::WordRows view() const {
    return {rows, width, ids.data(), lengths.data(), time.empty() ? nullptr : time.data()};
  }
};

// (rows, dim): sum_j l_j ⊙ table[ids[r, j]] + temporal[time[r]]; table (V, dim), temporal
// (any rows, dim) or undefined (then rows.time must be empty). position: l is the position
// encoding, else 1. Ids outside the table, times outside temporal, bad lengths: heed::Error.
Var bag_of_words(const Var& table, const Var& temporal,
                 const std::shared_ptr<const WordRowBatch>& rows, bool position);

}  // namespace heed
