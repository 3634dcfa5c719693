#pragma once
// StatsTable: a corpus metric as per-segment sufficient statistics plus the function that
// turns their column sums into the score. Corpus BLEU, chrF, WER and PER are all of this
// form, so one table serves the corpus score, scores of subsets (length buckets) and
// bootstrap resampling without re-reading any text.
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace heed::metrics {

class StatsTable {
 public:
  using ScoreFn = std::function<double(std::span<const double> sums)>;

  StatsTable(std::string name, std::size_t width, ScoreFn score);

  const std::string& name() const { return name_; }
  std::size_t width() const { return width_; }
  std::size_t rows() const { return width_ ? values_.size() / width_ : 0; }
  std::span<const double> row(std::size_t i) const;
  void add_row(std::span<const double> stats);

  std::vector<double> column_sums() const;
  // The metric over all rows; over given column sums; over a selection of rows (repeats
  // allowed, as in resampling).
  double score() const;
  double score_of(std::span<const double> sums) const { return score_(sums); }
  StatsTable subset(const std::vector<std::size_t>& rows) const;
  // The same rows scored by another function of the same statistics (ROUGE keeps one row for
  // its three measures).
  StatsTable with_score(std::string name, ScoreFn score) const;

 private:
  std::string name_;
  std::size_t width_;
  ScoreFn score_;
  std::vector<double> values_;  // rows x width, row-major
};

}  // namespace heed::metrics
