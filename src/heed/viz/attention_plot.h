#pragma once
// Attention records as pictures: one SVG heat map per sentence and an HTML page that
// lists them (what `heed plot` writes).
#include <string>
#include <vector>

#include "heed/viz/attention_record.h"
#include "heed/viz/heatmap_svg.h"

namespace heed::viz {

// Output tokens down the left, source tokens along the top, weights on [0, 1].
HeatmapPanel attention_panel(const AttentionRecord& record);

// Title "Sentence <index> · <model> · score <score>", the source sentence as subtitle.
HeatmapOptions attention_plot_options(const AttentionRecord& record, bool show_values);

std::string attention_svg(const AttentionRecord& record, bool show_values);

// "attention_<index>.svg"
std::string attention_svg_name(const AttentionRecord& record);

// A static page: per sentence its source, output, score and model, and the SVG
// (attention_svg_name) as an image next to the page.
std::string attention_index_html(const std::vector<AttentionRecord>& records,
                                 const std::string& source_file);

}  // namespace heed::viz
