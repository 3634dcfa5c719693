#pragma once
// DecodeOptions: the knobs of greedy decoding and beam search (the reference's
// greedy_decode / beam_search keyword arguments, same defaults).
#include <cstdint>
#include <span>
#include <string_view>

#include "heed/base/enum_names.h"
#include "heed/models/seq2seq.h"

namespace heed {

// Final ranking divides a hypothesis' log-probability by lp(|y|):
//   length: |y|^alpha          gnmt: ((5 + |y|) / 6)^alpha
// |y| counts the EOS token. alpha = 0 ranks by raw log-probability.
enum class LengthNorm { length, gnmt };
inline constexpr EnumName<LengthNorm> kLengthNormNames[] = {{LengthNorm::length, "length"},
                                                             {LengthNorm::gnmt, "gnmt"}};
constexpr std::span<const EnumName<LengthNorm>> enum_names(LengthNorm) { return kLengthNormNames; }

struct DecodeOptions {
  std::int64_t beam = 5;       // beam width k (beam_search only)
  std::int64_t n_best = 1;     // hypotheses returned per sentence, <= beam (beam_search only)
  // Decoder steps; 0 = int(len_a * |x| + len_b) with |x| each sentence's own source length
  // (EOS included), so a sentence's output never depends on its batch mates.
  std::int64_t max_len = 0;
  double len_a = 2.0;
  double len_b = 10.0;
  double alpha = 0.0;          // length-normalisation exponent
  LengthNorm norm = LengthNorm::length;
  // false: run exactly the maximum number of steps even when every hypothesis has ended
  // (the benchmark's forced length); the output is the same, only the work differs.
  bool stop_at_eos = true;
  // Windowed decoding (docs/MODELS.md#windowed-decoding): each step attends over the source
  // positions [p - before, p + after] around the median p of the previous step's weights;
  // off by default.
  AttentionWindow window;
  // The products with the model's weights run at the model's own decoding precision
  // (Seq2Seq::compute_type(), models/compute_type.h), on weights packed once.
};


// The most output tokens of a sentence with src_len source tokens: max_len, or
// int(len_a * src_len + len_b) (truncated like Python's int()). Throws unless it is at least
// 1 and at most 10^9.
std::int64_t sentence_max_steps(std::int64_t src_len, const DecodeOptions& options);

// The number of decoder steps for this batch: the largest sentence_max_steps of its
// sentences, at most the model's max_output_steps() (a decode stops there as at max_len).
// Throws when the decoding's buffers (tokens, back-pointers and attention of every step and
// row) would not fit in the machine's memory (base/memory.h).
std::int64_t decode_max_steps(const Seq2Seq& model, const TokenBatch& src,
                              const DecodeOptions& options);

// lp(|y|) with |y| clamped to at least 1.
double length_penalty(std::int64_t length, const DecodeOptions& options);

}  // namespace heed
