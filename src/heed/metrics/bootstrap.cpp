#include "heed/metrics/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "heed/base/error.h"
#include "heed/base/random.h"

namespace heed::metrics {

namespace {

// Scores of the table on each resample of `indices` (samples x rows, row-major).
std::vector<double> resampled_scores(const StatsTable& table, const std::vector<std::size_t>& indices,
                                     std::size_t samples) {
  const std::size_t rows = table.rows(), width = table.width();
  std::vector<double> scores(samples), sums(width);
  for (std::size_t s = 0; s < samples; ++s) {
    std::fill(sums.begin(), sums.end(), 0.0);
    for (std::size_t k = 0; k < rows; ++k) {
      std::span<const double> row = table.row(indices[s * rows + k]);
      for (std::size_t c = 0; c < width; ++c) sums[c] += row[c];
    }
    scores[s] = table.score_of(sums);
  }
  return scores;
}

std::vector<std::size_t> draw_indices(std::size_t rows, std::size_t samples, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<std::size_t> indices(rows * samples);
  for (std::size_t& i : indices) i = static_cast<std::size_t>(rng.below(rows));
  return indices;
}

ConfidenceInterval interval(double score, std::vector<double> scores) {
  ConfidenceInterval ci;
  ci.score = score;
  ci.samples = scores.size();
  std::sort(scores.begin(), scores.end());
  const std::size_t n = scores.size();
  const std::size_t lower_idx = n / 40, upper_idx = n - lower_idx - 1;
  ci.lower = scores[lower_idx];
  ci.upper = scores[upper_idx];
  ci.half_width = 0.5 * (ci.upper - ci.lower);
  double sum = 0;
  for (double x : scores) sum += x;
  ci.mean = sum / static_cast<double>(n);
  return ci;
}

void check(const StatsTable& table, std::size_t samples) {
  HEED_CHECK(samples > 0, "bootstrap: needs at least one resample");
  HEED_CHECK(table.rows() > 0, "bootstrap: ", table.name(), " has no segments");
}

}  // namespace

ConfidenceInterval bootstrap_ci(const StatsTable& table, std::size_t samples, std::uint64_t seed) {
  check(table, samples);
  std::vector<std::size_t> indices = draw_indices(table.rows(), samples, seed);
  return interval(table.score(), resampled_scores(table, indices, samples));
}

PairedBootstrapResult paired_bootstrap(const StatsTable& baseline, const StatsTable& system,
                                       std::size_t samples, std::uint64_t seed) {
  check(baseline, samples);
  check(system, samples);
  HEED_CHECK(baseline.rows() == system.rows(), "paired bootstrap: the baseline has ", baseline.rows(),
             " segments, the system ", system.rows());
  std::vector<std::size_t> indices = draw_indices(baseline.rows(), samples, seed);
  std::vector<double> bl = resampled_scores(baseline, indices, samples);
  std::vector<double> sys = resampled_scores(system, indices, samples);

  PairedBootstrapResult r;
  r.baseline = interval(baseline.score(), bl);
  r.system = interval(system.score(), sys);
  r.difference = r.system.score - r.baseline.score;

  std::vector<double> diffs(samples);
  double mean_diff = 0;
  std::size_t wins = 0;
  for (std::size_t s = 0; s < samples; ++s) {
    diffs[s] = std::fabs(sys[s] - bl[s]);
    mean_diff += diffs[s];
    wins += sys[s] > bl[s];
  }
  mean_diff /= static_cast<double>(samples);
  std::size_t exceed = 0;
  // ">=" where sacreBLEU has ">": the same up to ties, and a system compared with itself
  // gets p = 1 rather than 1 / (samples + 1).
  for (double d : diffs) exceed += (d - mean_diff) >= std::fabs(r.difference);
  r.p_value = static_cast<double>(exceed + 1) / static_cast<double>(samples + 1);
  r.system_wins = static_cast<double>(wins) / static_cast<double>(samples);
  return r;
}

}  // namespace heed::metrics
