#pragma once
// The input checks of an encoder-decoder's calls (teacher-forced forward and one decoder
// step): a caller's mistake becomes an Error naming the model, not a read out of bounds.
#include <cstddef>
#include <cstdint>
#include <span>

#include "heed/models/decoder.h"
#include "heed/models/token_batch.h"

namespace heed {

// Checks tgt_in against the source batch: same batch size, ids inside the vocabulary.
void check_target(const TokenBatch& tgt_in, std::int64_t batch, std::int64_t vocab,
                  const char* model);

// Checks a step's inputs: one previous token per row inside the vocabulary, a state of
// parts state parts with that many rows, an encoding of that many rows.
void check_step(std::span<const std::int32_t> y_prev, const DecoderState& state,
                std::size_t parts, const Encoded& enc, std::int64_t vocab, const char* model);

}  // namespace heed
