#pragma once
// Greedy decoding: at every step each sentence takes the argmax of the model's logits
// (the first one on ties); a sentence that has emitted EOS is fed PAD afterwards. One
// model.step per time step for the whole batch. Uses max_len / len_a / len_b / alpha /
// norm / stop_at_eos from the options (beam and n_best are ignored). Runs without a tape.
#include "heed/decode/decode_options.h"
#include "heed/decode/hypothesis.h"

namespace heed {

DecodeResult greedy_decode(const Seq2Seq& model, const TokenBatch& src,
                           const DecodeOptions& options = {});

}  // namespace heed
