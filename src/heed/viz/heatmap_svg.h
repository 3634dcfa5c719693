#pragma once
// Heat maps as standalone SVG, written by hand (no plotting library): a grid of cells
// coloured with viridis, column labels on top (slanted when they do not fit), row labels
// on the left, a colour bar with ticks, a title. Every cell carries a <title> tooltip.
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace heed::viz {

struct HeatmapPanel {
  std::string title;                 // caption above this panel (may be empty)
  std::vector<std::string> columns;  // labels along the top (attention: source tokens)
  std::vector<std::string> rows;     // labels down the left (attention: output tokens)
  std::vector<float> values;         // row-major, rows.size() x columns.size()
  double vmin = 0.0, vmax = 1.0;     // the colour scale's range; values are clamped to it
};

struct HeatmapOptions {
  std::string title;     // first line, bold
  std::string subtitle;  // second line, grey (e.g. the sentence)
  bool show_values = false;  // print each value (2 decimals) inside its cell
  double cell_size = 0.0;    // px; 0 picks 28 for small matrices, down to 14 for huge ones
};

// The cell size in px that HeatmapOptions::cell_size = 0 picks: 28 up to 40 rows or
// columns, 20 up to 80, 14 beyond (shared with the cairo pictures, viz/attention_picture.h).
double heatmap_cell_size(std::size_t rows, std::size_t cols);

// One heat map. Throws heed::Error when values.size() != rows x columns, a value is not
// finite, there are no rows or columns, or vmax <= vmin.
std::string heatmap_svg(const HeatmapPanel& panel, const HeatmapOptions& options);

// Several heat maps side by side (e.g. attention next to saliency), each with its own
// colour bar; their grids share a top edge so rows line up.
std::string heatmaps_svg(std::span<const HeatmapPanel> panels, const HeatmapOptions& options);
std::string heatmaps_side_by_side_svg(const HeatmapPanel& left, const HeatmapPanel& right,
                                      const HeatmapOptions& options);

}  // namespace heed::viz
