#pragma once
// Alignments read off attention weights (docs/DECODING.md#alignments): what `heed translate
// --alignment` appends to each output line and what `heed align` writes.
//
// The attention matrix has a row per output piece (the row of the final EOS too, when one was
// emitted) and a column per source piece plus the source's EOS. Positions in an alignment
// leave both EOS out: source position i is source piece i, target position j output piece j.
//   hard       each output piece is linked to the source piece it attends to most (none when
//              that is the source's EOS): Pharaoh "i-j"
//   threshold  every link whose weight is at least T (0 < T <= 1): Pharaoh "i-j"
//   soft       each output piece's whole row over the source pieces, weights joined by
//              commas, rows separated by spaces (Marian's soft format)
// With words, positions count words instead of pieces (Tokenizer::word_positions): a link
// between two pieces links their words, a soft row is the mean of the rows of the word's
// pieces, and a soft column the sum of the columns of its pieces.
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "heed/data/tokenizer.h"
#include "heed/metrics/aer.h"

namespace heed {

enum class AlignmentMode { hard, threshold, soft };

struct AlignmentOptions {
  AlignmentMode mode = AlignmentMode::hard;
  float threshold = 1.0f;  // for AlignmentMode::threshold
  bool words = false;
};

// "hard", "soft" or a threshold in (0, 1]; otherwise heed::Error naming what it expected.
AlignmentOptions parse_alignment_mode(std::string_view text);

// What one sentence's alignment is computed from.
struct AttentionMatrix {
  std::span<const float> weights;         // rows x cols, row-major
  std::size_t rows = 0, cols = 0;
  std::vector<std::string> source;        // the source pieces, without EOS (cols - 1 of them)
  std::vector<std::string> output;        // the output pieces, without EOS
};

// The matrix of a decoded or forced sentence: source as the encoder saw it (EOS last), output
// as emitted (a final EOS is left out of the positions), weights |output| x |source|.
AttentionMatrix make_attention_matrix(const std::vector<std::string>& source,
                                      const std::vector<std::string>& output,
                                      std::span<const float> weights);

// Pharaoh links (hard, threshold) of one sentence, 0-based, sorted by target then source.
std::vector<metrics::AlignmentLink> alignment_links(const AttentionMatrix& m,
                                                    const AlignmentOptions& options,
                                                    const Tokenizer& source_tokenizer,
                                                    const Tokenizer& target_tokenizer);

// The text of one sentence's alignment, as `--alignment` appends it after " ||| ".
std::string alignment_text(const AttentionMatrix& m, const AlignmentOptions& options,
                           const Tokenizer& source_tokenizer, const Tokenizer& target_tokenizer);

}  // namespace heed
