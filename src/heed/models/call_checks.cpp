#include "heed/models/call_checks.h"

#include "heed/base/error.h"

namespace heed {

void check_target(const TokenBatch& tgt_in, std::int64_t batch, std::int64_t vocab,
                  const char* model) {
  HEED_CHECK(tgt_in.batch == batch, model, ": target batch has ", tgt_in.batch,
             " rows, source batch ", batch);
  HEED_CHECK(tgt_in.len >= 1, model, ": empty target batch");
  HEED_CHECK(static_cast<std::int64_t>(tgt_in.ids.size()) == tgt_in.batch * tgt_in.len, model,
             ": ", tgt_in.ids.size(), " target ids for a ", tgt_in.batch, " x ", tgt_in.len,
             " batch");
  for (std::size_t i = 0; i < tgt_in.ids.size(); ++i)
    HEED_CHECK(tgt_in.ids[i] >= 0 && tgt_in.ids[i] < vocab, model, ": target id ",
               tgt_in.ids[i], " is outside the vocabulary of ", vocab);
}

void check_step(std::span<const std::int32_t> y_prev, const DecoderState& state,
                std::size_t parts, const Encoded& enc, std::int64_t vocab, const char* model) {
  const auto B = static_cast<std::int64_t>(y_prev.size());
  HEED_CHECK(state.parts.size() == parts, model, ": decoder state has ", state.parts.size(),
             " parts, expected ", parts, " (use initial_state)");
  for (const Var& p : state.parts)
    HEED_CHECK(p.defined() && p.dim(0) == B, model, ": decoder state rows do not match the ", B,
               " previous tokens");
  for (const PositionCache& c : state.caches)
    HEED_CHECK(c.defined() && c.hypotheses() == B, model, ": decoder state rows do not match the ",
               B, " previous tokens");
  HEED_CHECK(static_cast<std::int64_t>(enc.lengths.size()) == B, model, ": encoding has ",
             enc.lengths.size(), " rows, ", B, " previous tokens given");
  for (std::int32_t y : y_prev)
    HEED_CHECK(y >= 0 && y < vocab, model, ": previous token ", y,
               " is outside the vocabulary of ", vocab);
}

}  // namespace heed
