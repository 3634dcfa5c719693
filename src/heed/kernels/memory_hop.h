#pragma once
// One hop of the memory network (docs/MODELS.md#memory-network): the question state u reads
// the memory: p_i = softmax_i(u · m_i) over a story's n real slots (or, in linear start, the
// raw scores u · m_i), o = sum_i p_i c_i. And its backward. With pad_to, the softmax also
// counts the empty slots of a memory of pad_to slots, each of score 0 and reading nothing (the
// MemN2N code's fixed-size memory of null statements).
#include <cstdint>

namespace heed::kernels {

struct HopShape {
  std::int64_t batch = 0;  // B
  std::int64_t slots = 0;  // S: m and c are (B, S, dim), slots at or past counts[b] unused
  std::int64_t dim = 0;
  const std::int32_t* counts = nullptr;  // n_b in [0, S]
  bool linear = false;                   // no softmax: p_i = u · m_i
  // 0: the softmax is over the n_b real slots. Else (at least S): pad_to - n_b empty slots of
  // score 0 join its denominator (their p is not stored; they read nothing, so o and the
  // backward are those of the real slots with these p).
  std::int64_t pad_to = 0;
};

// p (B, S), 0 past n_b; o (B, dim), 0 for a story with no statements.
template <typename T>
void memory_hop(const T* u, const T* m, const T* c, const HopShape& s, T* p, T* o);

// Accumulates into du (B, dim), dm and dc (B, S, dim) given do_ (B, dim) and the forward's p;
// any of du, dm, dc may be null (not wanted).
template <typename T>
void memory_hop_backward(const T* u, const T* m, const T* c, const T* p, const T* do_,
                         const HopShape& s, T* du, T* dm, T* dc);

}  // namespace heed::kernels
