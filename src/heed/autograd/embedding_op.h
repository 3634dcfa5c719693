#pragma once
// Embedding lookup on the tape.
#include <cstdint>
#include <vector>

#include "heed/autograd/var.h"

namespace heed {

// Rows of weight (num, dim) gathered by ids: output shape out_leading + (dim), e.g.
// out_leading (B, T) for a batch of B sequences of length T (ids row-major, B*T of them).
// The backward scatter-adds into weight's gradient, skipping ids equal to padding_idx
// (PyTorch's padding_idx: that row never receives a gradient); padding_idx < 0: none.
// Ids outside [0, num) throw heed::Error.
Var embedding(const Var& weight, const std::vector<std::int32_t>& ids, const Shape& out_leading,
              std::int64_t padding_idx = -1);

}  // namespace heed
