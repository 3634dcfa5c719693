#pragma once
// Helpers shared by greedy_decode and beam_search (not part of the public API).
#include <cstdint>

#include "heed/base/error.h"
#include "heed/models/seq2seq.h"

namespace heed::detail {

inline void check_source(const TokenBatch& src) {
  HEED_CHECK(src.batch >= 1, "decode: empty batch");
  HEED_CHECK(static_cast<std::int64_t>(src.lengths.size()) == src.batch,
             "decode: the batch has ", src.batch, " sentences but ", src.lengths.size(),
             " lengths");
  for (auto l : src.lengths)
    HEED_CHECK(l >= 1 && l <= src.len, "decode: source length ", l, " outside [1, ", src.len, "]");
}

// The step's logits as a contiguous (rows, V) tensor.
inline Tensor step_logits(const StepOutput& out, std::int64_t rows) {
  HEED_CHECK(out.logits.defined(), "decode: the model's step returned no logits");
  Tensor t = out.logits.value().contiguous();
  HEED_CHECK(t.ndim() == 2 && t.dim(0) == rows && t.dim(1) >= 1, "decode: step logits have shape ",
             t.shape().str(), ", expected (", rows, ", V)");
  HEED_CHECK(!out.shortlist || static_cast<std::size_t>(t.dim(1)) == out.shortlist->ids.size(),
             "decode: step logits have ", t.dim(1), " columns for a shortlist of ",
             out.shortlist ? out.shortlist->ids.size() : 0, " ids");
  return t;
}

// The target id of column c of a step's logits: c itself, or the c-th id of the step's
// shortlist (StepOutput::shortlist; its ids are sorted and start with the specials, so the
// special ids keep their columns).
inline std::int32_t column_id(const StepOutput& out, std::int64_t c) {
  return out.shortlist ? out.shortlist->ids[static_cast<std::size_t>(c)]
                       : static_cast<std::int32_t>(c);
}

// The step's attention as a contiguous (rows, m) tensor of dtype, or undefined.
inline Tensor step_alpha(const StepOutput& out, std::int64_t rows, std::int64_t m, DType dtype) {
  if (!out.alpha.defined()) return {};
  Tensor a = out.alpha.value().contiguous();
  HEED_CHECK(a.ndim() == 2 && a.dim(0) == rows && a.dim(1) == m, "decode: step attention has shape ",
             a.shape().str(), ", expected (", rows, ", ", m, ")");
  if (a.dtype() != dtype) a = a.to(dtype);
  return a;
}

// The step's p_gen (copy attention) as a contiguous (rows) float tensor, or undefined.
inline Tensor step_p_gen(const StepOutput& out, std::int64_t rows) {
  if (!out.p_gen.defined()) return {};
  Tensor p = out.p_gen.value().contiguous().to(DType::f32);
  HEED_CHECK(p.ndim() == 1 && p.dim(0) == rows, "decode: step p_gen has shape ", p.shape().str(),
             ", expected (", rows, ")");
  return p;
}

}  // namespace heed::detail
