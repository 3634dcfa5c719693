#pragma once
// The scores of `heed score`, for a program's own outputs. Every function takes whole corpora
// (line i of the hypotheses against line i of the references) and sums the statistics over
// the corpus before dividing, as the published tools do; a corpus of lines of different
// counts is a heed::Error.
#include <string>
#include <vector>

#include "heed/error.h"
#include "heed/export.h"

namespace heed {

// Corpus BLEU, 0..100, as sacreBLEU 2.x computes it by default (13a tokenisation, exp
// smoothing, mixed case). references[r] is the r-th reference stream (one line per
// hypothesis): several streams give several references per sentence.
HEED_API double bleu(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references);
HEED_API double bleu(const std::vector<std::string>& hypotheses,
                     const std::vector<std::string>& references);

// Corpus chrF2, 0..100, as sacreBLEU 2.x (character n-grams 1..6, beta 2); word_order 2
// gives chrF++.
HEED_API double chrf(const std::vector<std::string>& hypotheses,
                     const std::vector<std::string>& references, int word_order = 0);

// Word error rate in percent: whitespace tokens' edit distance summed over the corpus over
// the reference tokens (above 100 when the hypotheses insert much).
HEED_API double wer(const std::vector<std::string>& hypotheses,
                    const std::vector<std::string>& references);

// Alignment error rate of Pharaoh alignments (one line "i-j i-j ..." per sentence pair) against
// gold ones that may mark possible links ("i?j" or "i-j-P"); positions 0-based unless
// one_based. Fractions in [0, 1]. A malformed line is a heed::Error naming its number.
struct AlignmentScores {
  double precision = 0, recall = 0, aer = 0;
};
HEED_API AlignmentScores aer(const std::vector<std::string>& hypotheses,
                             const std::vector<std::string>& gold, bool one_based = false);

}  // namespace heed
