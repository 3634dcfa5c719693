#pragma once
// Line charts over categories as standalone SVG, written by hand like the heat maps: one
// coloured line with round markers per series, its 95% interval as a shaded band (or as
// error bars), y ticks at round numbers, axis titles, a legend to the right. Made for
// quality by source length (Bahdanau et al. 2015, figure 2): categories are length buckets.
// The chart's types serve line_chart_picture.h too, which draws a numeric x axis (each series
// its own x values: training curves against steps or time) with cairo, as SVG and PNG.
#include <span>
#include <string>
#include <vector>

#include "heed/base/enum_names.h"

namespace heed::viz {

using heed::operator<<;  // streams the enums below by name (base/enum_names.h)

struct LineSeries {
  std::string label;  // legend entry
  // One value per category; NaN (in y) means no point there: the line breaks at the gap.
  // lower/upper are the interval; empty vectors mean none.
  std::vector<double> y, lower, upper;
  // A numeric x axis (line_chart_picture.h): one x per y, increasing; the chart's categories
  // stay empty.
  std::vector<double> x{};
  bool dashed = false;  // a dashed line (e.g. the training loss beside the dev loss)
  int colour = -1;      // index into the categorical palette; -1: the series' own index
};

enum class IntervalStyle { band, bars };
inline constexpr EnumName<IntervalStyle> kIntervalStyleNames[] = {{IntervalStyle::band, "band"},
                                                                   {IntervalStyle::bars, "bars"}};
constexpr std::span<const EnumName<IntervalStyle>> enum_names(IntervalStyle) {
  return kIntervalStyleNames;
}

struct LineChart {
  std::string title, x_title, y_title;
  std::vector<std::string> categories;  // x labels, left to right; empty: numeric x
  std::vector<std::string> notes;       // optional second line under each x label ("n=120")
  std::vector<LineSeries> series;
  IntervalStyle intervals = IntervalStyle::band;
};

// Throws heed::Error when there is no category or series, a series' vectors do not match
// the categories, a value is infinite, or no series has a single point.
std::string line_chart_svg(const LineChart& chart);

// Round tick values covering [lo, hi]: steps of 1, 2, 2.5 or 5 times a power of ten, about
// `target` of them; the first tick is <= lo and the last >= hi.
std::vector<double> nice_ticks(double lo, double hi, int target = 5);
// The ticks as text, all with the decimals their step needs ("0.0005", "0.0010"; "0", "500").
std::vector<std::string> tick_labels(const std::vector<double>& ticks);

}  // namespace heed::viz
