#pragma once
// The two grapheme-to-phoneme measures of the literature (e.g. Yao & Zweig 2015, Rao et
// al. 2015). Each entry is one word: the hypothesis is a phone sequence (phones separated
// by whitespace), the references are one or more phone sequences (on a reference line,
// separated by tabs: words with several accepted pronunciations).
//   WER: the percentage of entries whose hypothesis equals none of the references.
//   PER: the phone edit distance to the closest reference (minimum distance; ties go to
//        the first such reference), summed over entries, divided by the summed lengths of
//        those same references, times 100.
#include <span>
#include <string>
#include <vector>

#include "heed/metrics/stats_table.h"

namespace heed::metrics {

enum class G2pMeasure { wer, per };

struct G2pScore {
  double wer = 0, per = 0;
  long entries = 0, wrong_entries = 0, phone_edits = 0, ref_phones = 0;
};

// Per-entry statistics [wrong (0/1), 1, phone edits, reference phones]; the table's score
// is the chosen measure (both are computable from the same columns).
StatsTable g2p_stats(const std::vector<std::string>& hypotheses,
                     const std::vector<std::vector<std::string>>& references,
                     G2pMeasure measure = G2pMeasure::per);
G2pScore g2p_from_sums(std::span<const double> sums);
G2pScore g2p_score(const std::vector<std::string>& hypotheses,
                   const std::vector<std::vector<std::string>>& references);

// A reference line -> its references (tab separated; empty fields dropped).
std::vector<std::string> split_g2p_references(const std::string& line);

}  // namespace heed::metrics
