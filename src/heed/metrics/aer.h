#pragma once
// Word alignments in the Pharaoh format, and the alignment error rate (docs/METRICS.md#aer).
//
// A line holds one sentence pair's links, separated by spaces: "i-j" links source position i
// to target position j. Gold alignments also mark links that are only possible: "i?j" or
// "i-j-P" (and "i-j-S" for an explicitly sure one). Positions count from 0 unless the caller
// says they count from 1.
//
// With A the links of a hypothesis, S the gold sure links and P the gold possible ones
// (P includes S; a link marked both ways is sure), Och and Ney's measures are
//   precision = |A ∩ P| / |A|,   recall = |A ∩ S| / |S|,
//   AER       = 1 - (|A ∩ S| + |A ∩ P|) / (|A| + |S|),
// each summed over the corpus before dividing.
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "heed/metrics/stats_table.h"

namespace heed::metrics {

// (source position, target position), 0-based.
using AlignmentLink = std::pair<std::int32_t, std::int32_t>;

struct SentenceAlignment {
  std::vector<AlignmentLink> sure;      // sorted by target, then source; no repeats
  std::vector<AlignmentLink> possible;  // the same; disjoint from sure
};

// Parses one line. where ("gold.txt:12") prefixes every error, which names the bad token
// and the accepted forms. one_based: positions in the text count from 1.
SentenceAlignment parse_pharaoh(std::string_view line, std::string_view where, bool one_based);

// Links as "i-j i-j ...", 0-based, in the order given.
std::string format_pharaoh(const std::vector<AlignmentLink>& links);

// The corpus sums behind the measures.
struct AerCounts {
  std::size_t hyp = 0;           // |A|
  std::size_t sure = 0;          // |S|
  std::size_t hyp_sure = 0;      // |A ∩ S|
  std::size_t hyp_possible = 0;  // |A ∩ P|, P including S
};

// Adds one sentence: every link of hyp (sure or possible) is in A.
void add_aer_counts(AerCounts& counts, const SentenceAlignment& gold,
                    const SentenceAlignment& hyp);

struct AerScore {
  double precision = 0, recall = 0, aer = 0;  // fractions in [0, 1]; 0 where undefined
};
AerScore aer_score(const AerCounts& counts);

// What `heed score --metric aer` computes: one row per sentence pair, the four counts above
// as columns; the table's score is AER in percent. Line i of hyps is scored against line i
// of refs; errors name the file (the names given) and the line.
StatsTable aer_stats(const std::vector<std::string>& hyps, std::string_view hyp_name,
                     bool hyp_one_based, const std::vector<std::string>& refs,
                     std::string_view ref_name, bool ref_one_based);
// The measures from a table's column sums.
AerScore aer_from_sums(std::span<const double> sums);

}  // namespace heed::metrics
