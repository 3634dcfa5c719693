#include "heed/decode/decode_options.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "heed/base/error.h"
#include "heed/base/memory.h"

namespace heed {

std::int64_t sentence_max_steps(std::int64_t src_len, const DecodeOptions& options) {
  HEED_CHECK(options.max_len >= 0, "decode: max_len must be >= 0 (0 = len_a * |x| + len_b), got ",
             options.max_len);
  constexpr double kMost = 1e9;
  double steps = static_cast<double>(options.max_len);
  if (options.max_len == 0)  // Python's int() truncates towards zero.
    steps = std::trunc(options.len_a * static_cast<double>(src_len) + options.len_b);
  HEED_CHECK(std::isfinite(steps) && steps >= 1 && steps <= kMost,
             "decode: the maximum output length for a source of ", src_len, " tokens is ",
             steps, " (max_len ", options.max_len, ", len_a ", options.len_a, ", len_b ",
             options.len_b, "); it must be from 1 to 1e9: check --max-len-a and --max-len-b");
  return static_cast<std::int64_t>(steps);
}

std::int64_t decode_max_steps(const Seq2Seq& model, const TokenBatch& src,
                              const DecodeOptions& options) {
  std::int64_t steps = 0;
  if (options.max_len > 0 || src.lengths.empty()) {
    steps = sentence_max_steps(src.len, options);
  } else {
    for (auto l : src.lengths) steps = std::max(steps, sentence_max_steps(l, options));
  }
  if (const std::int64_t most = model.max_output_steps(); most > 0) steps = std::min(steps, most);
  // Per step and row: a token, a back-pointer and the attention over the source (floats).
  const double rows = static_cast<double>(src.batch) * static_cast<double>(std::max<std::int64_t>(options.beam, 1));
  const double bytes = static_cast<double>(steps) * rows * (8.0 + 4.0 * static_cast<double>(src.len));
  check_fits_in_memory(bytes, detail::concat("decoding ", src.batch, " sentences with outputs of up to ", steps,
                                             " tokens"),
                       "lower --max-len-a / --max-len-b (or max_len), or --batch-size");
  return steps;
}

double length_penalty(std::int64_t length, const DecodeOptions& options) {
  const double len = static_cast<double>(std::max<std::int64_t>(length, 1));
  return options.norm == LengthNorm::length ? std::pow(len, options.alpha)
                                            : std::pow((5.0 + len) / 6.0, options.alpha);
}

}  // namespace heed
