#pragma once
// Batched beam search (the reference's beam_search): B sentences x k hypotheses are B*k
// rows of one model.step call per time step.
//
// Each step scores every continuation score(h) + log p(v | h) of a sentence's k rows and
// keeps the k best of those k*V candidates (ties: lower row, then lower token id, first).
// A hypothesis that has emitted EOS is frozen: its only continuation is PAD at cost 0, so it
// keeps its score and length while it competes with the live ones. Decoding stops when every
// hypothesis of the batch has ended (unless stop_at_eos is false) or after the maximum
// number of steps. The final ranking divides by the length penalty; the n_best best are
// returned with their tokens and back-tracked attention. Runs without a tape.
#include "heed/decode/decode_options.h"
#include "heed/decode/hypothesis.h"

namespace heed {

DecodeResult beam_search(const Seq2Seq& model, const TokenBatch& src,
                         const DecodeOptions& options = {});

}  // namespace heed
