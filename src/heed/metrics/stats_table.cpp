#include "heed/metrics/stats_table.h"

#include <utility>

#include "heed/base/error.h"

namespace heed::metrics {

StatsTable::StatsTable(std::string name, std::size_t width, ScoreFn score)
    : name_(std::move(name)), width_(width), score_(std::move(score)) {
  HEED_CHECK(width_ > 0, "StatsTable: width must be positive");
}

std::span<const double> StatsTable::row(std::size_t i) const {
  HEED_CHECK(i < rows(), "StatsTable: row ", i, " out of range (", rows(), " rows)");
  return {values_.data() + i * width_, width_};
}

void StatsTable::add_row(std::span<const double> stats) {
  HEED_CHECK(stats.size() == width_, "StatsTable ", name_, ": row has ", stats.size(),
             " statistics, expected ", width_);
  values_.insert(values_.end(), stats.begin(), stats.end());
}

std::vector<double> StatsTable::column_sums() const {
  std::vector<double> sums(width_, 0.0);
  for (std::size_t i = 0; i < values_.size(); i += width_)
    for (std::size_t k = 0; k < width_; ++k) sums[k] += values_[i + k];
  return sums;
}

double StatsTable::score() const { return score_(column_sums()); }

StatsTable StatsTable::subset(const std::vector<std::size_t>& rows) const {
  StatsTable out(name_, width_, score_);
  out.values_.reserve(rows.size() * width_);
  for (std::size_t r : rows) out.add_row(row(r));
  return out;
}

StatsTable StatsTable::with_score(std::string name, ScoreFn score) const {
  StatsTable out(std::move(name), width_, std::move(score));
  out.values_ = values_;
  return out;
}

}  // namespace heed::metrics
