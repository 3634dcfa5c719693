#pragma once
// Decoding a batch as independent blocks of sentences, one per thread.
//
// Every sentence of a batch decodes independently of the others (greedy and beam search
// alike), so with T threads the batch is cut into T blocks of consecutive sentences and each
// thread decodes its block from start to end with single-threaded kernels and BLAS (OpenBLAS
// runs one thread when called inside a parallel region). Nothing waits on a barrier per
// step, which is where two threads sharing one small per-step GEMM lose their time. Each
// sentence's step limit is its own (DecodeOptions::max_len), so every sentence gets the same
// output as when the batch is decoded at once (up to float rounding inside GEMMs of
// different row counts).
#include <cstdint>
#include <functional>

#include "heed/decode/decode_options.h"
#include "heed/decode/hypothesis.h"

namespace heed::detail {

// Fewer sentences than this per thread are decoded by the calling thread alone.
constexpr std::int64_t kMinSentencesPerBlock = 8;

using BlockDecoder = std::function<DecodeResult(const TokenBatch&, const DecodeOptions&)>;

// decode(src, options) when one block is all there is; else decode on each block in
// parallel and the results joined in batch order (steps: the most any block ran).
// Exceptions from a block are rethrown in the calling thread.
DecodeResult decode_in_row_blocks(const TokenBatch& src, const DecodeOptions& options,
                                  const BlockDecoder& decode);

// Rows [r0, r1) of src as a batch of their own, padded to their longest sentence (with their
// images, for an image model's source).
TokenBatch row_block(const TokenBatch& src, std::int64_t r0, std::int64_t r1);

}  // namespace heed::detail
