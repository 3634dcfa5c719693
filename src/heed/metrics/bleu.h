#pragma once
// BLEU (Papineni et al., 2002) as sacreBLEU 2.x computes it, so that scores are comparable
// with published numbers: 13a tokenisation, n-grams 1..4 clipped against the maximum
// count over the references, the closest reference length (ties: the shorter) for the
// brevity penalty, statistics summed over the corpus, and sacreBLEU's smoothing methods.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "heed/metrics/stats_table.h"

namespace heed::metrics {

enum class BleuTokenize { k13a, none };
// Chen & Cherry (2014): none; floor = method 1; add_k = method 2; exp = method 3 (mteval's
// NIST smoothing, sacreBLEU's default).
enum class BleuSmooth { none, floor, add_k, exp };

struct BleuOptions {
  bool lowercase = false;
  BleuTokenize tokenize = BleuTokenize::k13a;
  BleuSmooth smooth = BleuSmooth::exp;
  double smooth_value = -1;  // < 0: the method's default (floor 0.1, add-k 1)
  int max_order = 4;
  // Average the log precisions only over the orders the hypothesis has n-grams of
  // (sacreBLEU's effective_order; the right choice for single sentences).
  bool effective_order = false;

  // sacreBLEU's sentence_bleu() defaults: exp smoothing with effective order.
  static BleuOptions sentence() {
    BleuOptions o;
    o.effective_order = true;
    return o;
  }
};

struct BleuScore {
  double score = 0;                 // 0..100
  std::vector<double> counts;       // matched n-grams per order
  std::vector<double> totals;       // hypothesis n-grams per order
  std::vector<double> precisions;   // per order, 0..100 (smoothed)
  double bp = 0;                    // brevity penalty
  double ratio = 0;                 // hyp_len / ref_len
  long hyp_len = 0, ref_len = 0;

  // "BLEU = 48.53 82.4/50.0/45.5/37.5 (BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)",
  // as sacreBLEU prints it.
  std::string format(int width = 2) const;
};

// The BLEU of summed statistics: sacreBLEU's BLEU.compute_bleu.
BleuScore compute_bleu(std::vector<double> correct, std::vector<double> total, long hyp_len,
                       long ref_len, const BleuOptions& options = {});

// The tokens BLEU counts for one line (lowercasing, rstrip, tokeniser).
std::vector<std::string> bleu_tokens(const std::string& line, const BleuOptions& options);

// Per-segment statistics [hyp_len, ref_len, correct_1..N, total_1..N]. references[i]
// holds the references of segment i (one or more; empty strings are skipped, as in
// sacreBLEU, but every segment needs at least one non-empty reference).
StatsTable bleu_stats(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references,
                      const BleuOptions& options = {});
BleuScore bleu_from_sums(std::span<const double> sums, const BleuOptions& options = {});

BleuScore corpus_bleu(const std::vector<std::string>& hypotheses,
                      const std::vector<std::vector<std::string>>& references,
                      const BleuOptions& options = {});
// One sentence; defaults as sacreBLEU's sentence_bleu (effective order).
BleuScore sentence_bleu(const std::string& hypothesis, const std::vector<std::string>& references,
                        const BleuOptions& options = BleuOptions::sentence());

// sacreBLEU-like signature, e.g. "nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp".
std::string bleu_signature(const BleuOptions& options, int num_refs);

// Rearranges reference streams (one vector per reference file, sacreBLEU's layout) into
// references per segment; every stream must have the hypotheses' length.
std::vector<std::vector<std::string>> references_per_segment(
    const std::vector<std::vector<std::string>>& streams);

}  // namespace heed::metrics
