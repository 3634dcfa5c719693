#pragma once
// ROUGE-1, ROUGE-2 and ROUGE-L (Lin 2004) as Google's rouge-score package (0.1.2) computes
// them, the implementation most recent summarisation papers report: text lowercased, every
// character other than a-z and 0-9 a separator, optional Porter stemming of tokens longer
// than 3 characters; per segment the precision, recall and F1 of n-gram overlap (ROUGE-N) or
// of the longest common subsequence (ROUGE-L); with several references, per measure the
// reference with the best F1 (rouge-score's score_multi); over the corpus the mean of the
// segments' values. docs/METRICS.md says how this differs from the ROUGE-1.5.5 Perl script.
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "heed/metrics/stats_table.h"

namespace heed::metrics {

struct RougeOptions {
  // Porter-stem tokens longer than 3 characters (rouge-score's use_stemmer; libstemmer's
  // original Porter algorithm, porter_stemmer.h).
  bool stem = false;
};

// The three measures, in the order of every row, line and list below.
enum class RougeType { rouge1, rouge2, rougeL };
inline constexpr RougeType kRougeTypes[] = {RougeType::rouge1, RougeType::rouge2,
                                            RougeType::rougeL};
// "ROUGE-1", "ROUGE-2", "ROUGE-L"; and the JSON key "rouge1", "rouge2", "rougeL".
std::string_view rouge_name(RougeType type);
std::string_view rouge_key(RougeType type);

// Fractions 0..1, as rouge-score's Score.
struct RougeScore {
  double precision = 0, recall = 0, f1 = 0;
};

// The tokens ROUGE compares: lowercased (heed::to_lower, Python's str.lower()), split at
// every character other than ASCII a-z and 0-9 (so "don't" is "don" "t" and letters outside
// ASCII are dropped), tokens of more than 3 characters stemmed if asked.
std::vector<std::string> rouge_tokens(std::string_view text, const RougeOptions& options = {});

// One hypothesis against one reference, from their tokens. ROUGE-N: clipped n-gram matches
// over the hypothesis' n-grams (precision) and the reference's (recall), each denominator at
// least 1; ROUGE-L: the LCS length over the hypothesis' and the reference's lengths, all 0
// when either side is empty. F1 = 2PR / (P + R), 0 when P + R = 0.
RougeScore rouge_n(const std::vector<std::string>& hypothesis,
                   const std::vector<std::string>& reference, int n);
RougeScore rouge_l(const std::vector<std::string>& hypothesis,
                   const std::vector<std::string>& reference);

// Per-segment statistics, 10 a row: precision, recall, F1 of ROUGE-1, of ROUGE-2, of ROUGE-L
// (fractions, each from the reference with the best F1 for that measure, the first on ties),
// then 1 (the segment count). references[i] holds the references of segment i; empty ones
// are skipped, and every segment needs at least one non-empty reference. The table's score
// is ROUGE-1's mean F1 in percent; rouge_table gives the same rows scored by another measure.
StatsTable rouge_stats(const std::vector<std::string>& hypotheses,
                       const std::vector<std::vector<std::string>>& references,
                       const RougeOptions& options = {});
StatsTable rouge_table(const StatsTable& stats, RougeType type);

// The corpus values of one measure from the column sums of rouge_stats: the mean precision,
// recall and F1 over the segments, in percent (all 0 for no segment).
RougeScore rouge_from_sums(std::span<const double> sums, RougeType type);

// "ROUGE-1 = 47.62 ROUGE-2 = 25.00 ROUGE-L = 47.62 (F1; P = 50.00/28.57/50.00
// R = 45.45/22.22/45.45; segments = 2 refs = 3 stem = no)": the mean F1 of each measure, then
// the mean precisions and recalls in the same order.
std::string format_rouge(std::span<const double> sums, int refs, const RougeOptions& options);

}  // namespace heed::metrics
