#include "heed/decode/decode_options.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "heed/base/error.h"

namespace heed {

LengthNorm parse_length_norm(std::string_view name) {
  if (name == "length") return LengthNorm::length;
  if (name == "gnmt") return LengthNorm::gnmt;
  throw Error("unknown length normalisation '" + std::string(name) +
              "' (expected length or gnmt)");
}

std::int64_t decode_max_steps(const TokenBatch& src, const DecodeOptions& options) {
  HEED_CHECK(options.max_len >= 0, "decode: max_len must be >= 0 (0 = len_a * |x| + len_b), got ",
             options.max_len);
  std::int64_t steps = options.max_len;
  if (steps == 0) {
    std::int64_t longest = 0;
    for (auto l : src.lengths) longest = std::max(longest, l);
    // Python's int() truncates towards zero.
    steps = static_cast<std::int64_t>(std::trunc(options.len_a * static_cast<double>(longest) +
                                                 options.len_b));
  }
  HEED_CHECK(steps >= 1, "decode: the maximum output length is ", steps,
             " (check max_len, len_a and len_b)");
  return steps;
}

double length_penalty(std::int64_t length, const DecodeOptions& options) {
  const double len = static_cast<double>(std::max<std::int64_t>(length, 1));
  return options.norm == LengthNorm::length ? std::pow(len, options.alpha)
                                            : std::pow((5.0 + len) / 6.0, options.alpha);
}

}  // namespace heed
