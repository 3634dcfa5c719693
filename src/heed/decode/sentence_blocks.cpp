#include "heed/decode/sentence_blocks.h"

#include <omp.h>

#include <algorithm>
#include <exception>
#include <vector>

#include "heed/kernels/gemm.h"

namespace heed::detail {

TokenBatch row_block(const TokenBatch& src, std::int64_t r0, std::int64_t r1) {
  HEED_CHECK(0 <= r0 && r0 < r1 && r1 <= src.batch, "decode: row block [", r0, ", ", r1,
             ") outside a batch of ", src.batch);
  TokenBatch part;
  part.batch = r1 - r0;
  part.lengths.assign(src.lengths.begin() + r0, src.lengths.begin() + r1);
  part.len = *std::max_element(part.lengths.begin(), part.lengths.end());
  part.ids.resize(static_cast<std::size_t>(part.batch * part.len));
  for (std::int64_t b = 0; b < part.batch; ++b)
    std::copy_n(src.ids.begin() + (r0 + b) * src.len, part.len,
                part.ids.begin() + b * part.len);
  if (src.images.defined()) part.images = src.images.slice(0, r0, r1).contiguous();
  part.shortlist = src.shortlist;  // the batch's union: every block decodes with all of it
  if (!src.copy_ids.empty()) {  // copy attention's map, cut like the ids
    part.copy_ids.resize(part.ids.size());
    for (std::int64_t b = 0; b < part.batch; ++b)
      std::copy_n(src.copy_ids.begin() + (r0 + b) * src.len, part.len,
                  part.copy_ids.begin() + b * part.len);
    part.extended = src.extended;
  }
  if (src.frames.defined()) {  // the block's rows, up to its longest utterance's frames
    part.frame_lengths.assign(src.frame_lengths.begin() + r0, src.frame_lengths.begin() + r1);
    const std::int64_t T = *std::max_element(part.frame_lengths.begin(), part.frame_lengths.end());
    part.frames = src.frames.slice(0, r0, r1).slice(1, 0, T).contiguous();
  }
  return part;
}

DecodeResult decode_in_row_blocks(const TokenBatch& src, const DecodeOptions& options,
                                  const BlockDecoder& decode) {
  const std::int64_t blocks = std::min<std::int64_t>(kernels::num_threads(),
                                                     src.batch / kMinSentencesPerBlock);
  if (blocks <= 1 || omp_in_parallel()) return decode(src, options);
  const DecodeOptions& opt = options;  // limits are per sentence: a block needs no other
  std::vector<TokenBatch> parts;
  for (std::int64_t i = 0; i < blocks; ++i)
    parts.push_back(row_block(src, src.batch * i / blocks, src.batch * (i + 1) / blocks));
  std::vector<DecodeResult> results(static_cast<std::size_t>(blocks));
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(blocks));
#pragma omp parallel for num_threads(static_cast<int>(blocks)) schedule(static, 1)
  for (std::int64_t i = 0; i < blocks; ++i) {
    const auto k = static_cast<std::size_t>(i);
    try {
      results[k] = decode(parts[k], opt);
    } catch (...) {
      errors[k] = std::current_exception();
    }
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  DecodeResult joined;
  for (auto& r : results) {
    joined.steps = std::max(joined.steps, r.steps);
    for (auto& n : r.nbest) joined.nbest.push_back(std::move(n));
  }
  return joined;
}

}  // namespace heed::detail
