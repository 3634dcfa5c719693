#pragma once
// One hop of the memory network on the tape (docs/MODELS.md#memory-network): the question
// state u attends over the story's memories m and reads their outputs c (kernels/memory_hop.h).
#include <cstdint>
#include <memory>
#include <vector>

#include "heed/autograd/var.h"

namespace heed {

struct MemoryHop {
  Var o;     // (B, dim): sum_i p_i c_i
  Tensor p;  // (B, S): the attention weights (no gradient flows through them), 0 on empty slots
};

// u (B, dim); m and c (B * S, dim), slot i of story b at row b * S + i; counts[b] in [0, S] the
// story's statements (slots past it are ignored). linear: p are the raw scores u · m_i (linear
// start), else their softmax over the story's slots; pad_to > 0 (at least slots): the softmax
// also counts pad_to - counts[b] empty slots of score 0 that read nothing
// (kernels/memory_hop.h). Shapes that disagree, a pad_to below slots: heed::Error.
MemoryHop memory_hop(const Var& u, const Var& m, const Var& c,
                     const std::shared_ptr<const std::vector<std::int32_t>>& counts,
                     std::int64_t slots, bool linear, std::int64_t pad_to = 0);

}  // namespace heed
