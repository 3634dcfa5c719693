#pragma once
// Padded token batches for model tests.
#include <cstdint>
#include <vector>

#include "heed/models/token_batch.h"

namespace heed::testing {

// rows padded with PAD to len, lengths = the rows' sizes.
inline TokenBatch padded_batch(std::int64_t len, const std::vector<std::vector<std::int32_t>>& rows) {
  TokenBatch b;
  b.batch = static_cast<std::int64_t>(rows.size());
  b.len = len;
  for (const auto& r : rows) {
    for (std::int64_t t = 0; t < len; ++t)
      b.ids.push_back(t < static_cast<std::int64_t>(r.size()) ? r[static_cast<std::size_t>(t)]
                                                               : kPad);
    b.lengths.push_back(static_cast<std::int64_t>(r.size()));
  }
  return b;
}

}  // namespace heed::testing
