#pragma once
// Bootstrap resampling over segments (Koehn 2004), as sacreBLEU does it: a resample draws
// as many segments as the corpus holds, with replacement, sums their statistics and
// recomputes the corpus metric. Seeded, so a result repeats exactly.
#include <cstddef>
#include <cstdint>

#include "heed/metrics/stats_table.h"

namespace heed::metrics {

struct ConfidenceInterval {
  double score = 0;   // the metric on the whole corpus
  double mean = 0;    // mean over resamples
  double lower = 0;   // 95% interval: the (n/40)-th smallest and largest resampled scores
  double upper = 0;
  double half_width = 0;  // (upper - lower) / 2, sacreBLEU's "± ci"
  std::size_t samples = 0;
};

struct PairedBootstrapResult {
  ConfidenceInterval baseline, system;
  double difference = 0;  // system.score - baseline.score
  // sacreBLEU's two-sided p-value: count the resampled |differences|, centred on their
  // mean, that reach the observed |difference|; p = (count + 1) / (samples + 1).
  double p_value = 1;
  // Koehn's statistic: the fraction of resamples in which the system beats the baseline
  // (for an error rate, pass the tables as they are; "beats" then means a higher number).
  double system_wins = 0;
};

ConfidenceInterval bootstrap_ci(const StatsTable& table, std::size_t samples = 1000,
                                std::uint64_t seed = 12345);

// Both tables must hold the same segments in the same order; each resample draws the same
// segments from both.
PairedBootstrapResult paired_bootstrap(const StatsTable& baseline, const StatsTable& system,
                                       std::size_t samples = 1000, std::uint64_t seed = 12345);

}  // namespace heed::metrics
