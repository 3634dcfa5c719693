#pragma once
// A line chart with a numeric x axis (the training curves of viz/history_charts.h, against
// steps or time) drawn once with cairo onto an SVG or a PNG surface, as the attention
// pictures (attention_picture.h): one line per series in its palette colour (dashed where the
// series asks), round markers on curves of up to 80 points, round ticks on both axes over a
// light grid, axis titles, and the legend to the right. Text is laid out by Pango, so labels
// in any script draw from an installed font.
//
// The charts over categories (`heed plot --by-length`) are written as SVG text by
// line_chart_svg.h, which also holds the chart's types and its tick rules.
#include <string>

#include "heed/viz/line_chart_svg.h"

namespace heed::viz {

struct LineChartSize {
  int width = 0, height = 0;  // px at scale 1 (the SVG's size)
};

// Throws heed::Error when there is no series, a series has no x values, not one x per y value,
// or an interval, an x value is not finite, a y value is infinite (NaN: no point there, the
// line breaks), or no series has a point.
LineChartSize line_chart_picture_size(const LineChart& chart);
// An SVG document (text as glyph outlines) whose <title> is the chart's title and whose <desc>
// names the axes and every series in full, as text. id_prefix starts every id of the document,
// so that several charts can stand inline in one HTML page without sharing glyphs.
std::string line_chart_picture_svg(const LineChart& chart, const std::string& id_prefix = "");
// PNG bytes, line_chart_picture_size() x scale pixels (rounded up); scale in (0, 8].
std::string line_chart_picture_png(const LineChart& chart, double scale = 2.0);

}  // namespace heed::viz
