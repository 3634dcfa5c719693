#pragma once
// chrF (Popović 2015) and chrF++ (Popović 2017) as sacreBLEU 2.x computes them. Default:
// chrF2 = character n-grams 1..6 (whitespace removed), no word n-grams, beta 2. Per order
// the statistics [hyp n-grams, ref n-grams, matches] are summed over the corpus; the score
// averages precision and recall over the orders that both sides have n-grams of, then
// takes F_beta of the two averages (eps_smoothing instead averages per-order F scores,
// as chrF++.py does). With several references a segment keeps the statistics of the
// reference with the best sentence F score.
#include <span>
#include <string>
#include <vector>

#include "heed/metrics/stats_table.h"

namespace heed::metrics {

struct ChrfOptions {
  int char_order = 6;
  int word_order = 0;  // 2 gives chrF++
  double beta = 2;
  bool lowercase = false;
  bool whitespace = false;  // keep whitespace inside character n-grams
  bool eps_smoothing = false;
};

// Per-segment statistics: 3 per order, [hyp, ref, match] for character orders 1..char_order
// then word orders 1..word_order.
StatsTable chrf_stats(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references,
                      const ChrfOptions& options = {});
// The score (0..100) of summed statistics: sacreBLEU's CHRF._compute_f_score.
double chrf_from_sums(std::span<const double> sums, const ChrfOptions& options = {});

double corpus_chrf(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references,
                   const ChrfOptions& options = {});
double sentence_chrf(const std::string& hypothesis, const std::vector<std::string>& references,
                     const ChrfOptions& options = {});

// "chrF2 = 59.73" ("chrF2++" with word order 2), as sacreBLEU prints it.
std::string format_chrf(double score, const ChrfOptions& options = {}, int width = 2);

}  // namespace heed::metrics
