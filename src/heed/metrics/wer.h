#pragma once
// Word error rate, the ASR convention: the token edit distance (substitutions, insertions,
// deletions; tokens split on whitespace) summed over the corpus, divided by the number of
// reference tokens, times 100. It can exceed 100 when the hypotheses insert much.
#include <span>
#include <string>
#include <vector>

#include "heed/metrics/stats_table.h"

namespace heed::metrics {

struct WerOptions {
  bool lowercase = false;
};

// Per-segment statistics [edits, reference tokens]. One reference per segment; a corpus
// with no reference token at all is rejected.
StatsTable wer_stats(const std::vector<std::string>& hypotheses,
                     const std::vector<std::string>& references, const WerOptions& options = {});
// 100 * edits / reference tokens (a subset without reference tokens scores 0 when it has no
// edits, else 100 * edits: the denominator is at least 1).
double wer_from_sums(std::span<const double> sums);
double corpus_wer(const std::vector<std::string>& hypotheses,
                  const std::vector<std::string>& references, const WerOptions& options = {});

}  // namespace heed::metrics
