#include "heed/viz/attention_picture.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "heed/base/error.h"
#include "heed/viz/cairo_drawing.h"
#include "heed/viz/colormap.h"
#include "heed/viz/heatmap_svg.h"
#include "heed/viz/heatmap_style.h"
#include "heed/viz/svg_text.h"

namespace heed::viz {
namespace {

using namespace heatmap_style;
using namespace cairo_drawing;

constexpr double kMaxSideBySide = 1400.0;  // wider maps go one above the other
constexpr double kPi = 3.14159265358979323846;

struct Panel {
  std::string caption;
  const std::vector<float>* values = nullptr;
  double vmax = 1.0;
  bool p_gen = false;   // the p_gen column beside the grid (copy attention)
  bool coverage = false;  // the coverage strip under the grid
  double x = 0.0;       // left edge (row labels start here)
  double top = 0.0;     // top edge (the caption's)
  double width = 0.0;   // row labels, grid, colour bar and ticks
};

// The p_gen column of copy attention: its width, and the colours of its bar and of copied
// tokens' labels.
constexpr double kPGenWidth = 44.0, kPGenGap = 8.0;
constexpr double kCopied[3] = {0.85, 0.37, 0.0};
// The coverage strip under the attention grid: its gap above and its height, and the colours
// of a bar up to 1 and of one past it.
constexpr double kCoverageGap = 10.0, kCoverageHeight = 56.0;
constexpr double kCovered[3] = {0.23, 0.32, 0.55};

struct Layout {
  std::string title, subtitle, note, legend;
  std::vector<std::uint8_t> copied;  // per row
  std::vector<std::string> cols, rows;  // labels
  double cell = 28.0, font = 12.0;
  bool upright = false;  // column labels turned to read bottom to top
  double title_y = 0, subtitle_y = 0, note_y = 0, legend_y = 0;
  const std::vector<float>* p_gen = nullptr;
  double col_label_h = 0;
  double row_label_w = 0, grid_w = 0, grid_h = 0, bar_h = 0;
  std::vector<double> coverage;  // per column: the attention's column sum (when drawn)
  double coverage_top = 2.0;     // the strip's full height stands for this much
  std::vector<Panel> panels;
  double width = 0, height = 0;
};

void check_map(const AttentionPicture& p, const std::vector<float>& m, const char* what) {
  if (m.empty()) return;
  HEED_CHECK(m.size() == p.output.size() * p.source.size(), "picture: ", m.size(), " ", what,
             " values for ", p.output.size(), " output x ", p.source.size(), " source tokens");
  for (std::size_t i = 0; i < m.size(); ++i)
    HEED_CHECK(std::isfinite(m[i]), "picture: ", what, " [", i / p.source.size(), "][",
               i % p.source.size(), "] is not finite");
}

Layout layout_of(const AttentionPicture& p) {
  HEED_CHECK(!p.source.empty() && !p.output.empty(), "picture: needs source and output tokens, got ",
             p.source.size(), " and ", p.output.size());
  check_map(p, p.attention, "attention");
  check_map(p, p.saliency, "saliency");
  HEED_CHECK(p.p_gen.empty() || (p.p_gen.size() == p.output.size() && !p.attention.empty()),
             "picture: ", p.p_gen.size(), " p_gen values for ", p.output.size(),
             " output tokens (and p_gen needs the attention map)");
  HEED_CHECK(p.copied.empty() || p.copied.size() == p.output.size(), "picture: ",
             p.copied.size(), " copied flags for ", p.output.size(), " output tokens");
  for (float g : p.p_gen)
    HEED_CHECK(std::isfinite(g) && g >= 0.0f && g <= 1.0f, "picture: p_gen ", g,
               " is not in [0, 1]");
  HEED_CHECK(!p.attention.empty() || !p.saliency.empty(),
             "picture: neither an attention nor a saliency map to draw");
  HEED_CHECK(!p.coverage || !p.attention.empty(),
             "picture: the coverage strip needs the attention map");
  // Measured on a scratch surface: the text's size does not depend on the target.
  const Measure m;
  Layout L;
  L.title = drawable(label_text(p.title, kMaxTitle));
  L.subtitle = drawable(label_text(p.subtitle, kMaxTitle));
  if (p.attention.empty())
    L.note = "This model has no attention: the saliency map alone shows what each output "
             "token depends on.";
  if (!p.p_gen.empty()) {
    L.p_gen = &p.p_gen;
    L.legend = "copy attention: the bar beside each output word is p_gen, the probability of "
               "generating it (full) rather than copying it from the source; copied words in "
               "orange";
  }
  if (p.coverage) {
    L.coverage.assign(p.source.size(), 0.0);
    for (std::size_t i = 0; i < p.output.size(); ++i)
      for (std::size_t j = 0; j < p.source.size(); ++j)
        L.coverage[j] += static_cast<double>(p.attention[i * p.source.size() + j]);
    for (double c : L.coverage) L.coverage_top = std::max(L.coverage_top, c);
    const std::string line =
        "coverage: the bars under the map sum each source token's attention over the output; "
        "past the line at 1 (orange) it was attended more than once in all";
    L.legend = L.legend.empty() ? line : L.legend + ". " + line;
  }
  L.copied = p.copied;
  L.cell = heatmap_cell_size(p.output.size(), p.source.size());
  L.font = std::clamp(L.cell * 0.45, 9.0, 12.0);
  double max_col = 0, max_row = 0;
  for (const auto& t : p.source) {
    L.cols.push_back(drawable(label_text(t, kMaxLabel)));
    max_col = std::max(max_col, advance(m.get(), L.cols.back(), L.font));
  }
  for (std::size_t i = 0; i < p.output.size(); ++i) {
    L.rows.push_back(drawable(label_text(p.output[i], kMaxLabel)));
    const bool bold = !p.copied.empty() && p.copied[i];  // copied tokens are drawn bold
    max_row = std::max(max_row, advance(m.get(), L.rows.back(), L.font, bold));
  }
  L.upright = max_col > L.cell - 4.0;
  L.col_label_h = L.upright ? max_col + 10.0 : L.font + 8.0;
  if (p.coverage) max_row = std::max(max_row, advance(m.get(), "coverage", L.font));
  L.row_label_w = max_row + 8.0;
  L.grid_w = L.cell * static_cast<double>(p.source.size());
  L.grid_h = L.cell * static_cast<double>(p.output.size());
  L.bar_h = std::max(L.grid_h, kBarMinHeight);

  double y = kMargin, text_w = 0;
  if (!L.title.empty()) {
    L.title_y = y += kTitleFont;
    text_w = std::max(text_w, advance(m.get(), L.title, kTitleFont, true));
    y += 6.0;
  }
  if (!L.subtitle.empty()) {
    L.subtitle_y = y += kSubtitleFont + 2.0;
    text_w = std::max(text_w, advance(m.get(), L.subtitle, kSubtitleFont));
    y += 4.0;
  }
  if (!L.note.empty()) {
    L.note_y = y += kSubtitleFont + 2.0;
    text_w = std::max(text_w, advance(m.get(), L.note, kSubtitleFont));
    y += 4.0;
  }
  if (!L.legend.empty()) {
    L.legend_y = y += kSubtitleFont + 2.0;
    text_w = std::max(text_w, advance(m.get(), L.legend, kSubtitleFont));
    y += 4.0;
  }
  if (y > kMargin) y += 10.0;

  if (!p.attention.empty())
    L.panels.push_back({"attention \xCE\xB1 (each row sums to 1)", &p.attention, 1.0,
                        !p.p_gen.empty(), p.coverage});
  if (!p.saliency.empty()) {
    const float top = *std::max_element(p.saliency.begin(), p.saliency.end());
    L.panels.push_back({"saliency \xE2\x80\x96\xE2\x88\x82 log p(y) / \xE2\x88\x82 e(x)\xE2\x80\x96",
                        &p.saliency, top > 0.0f ? static_cast<double>(top) : 1.0});
  }
  double side_by_side = -kPanelGap;
  for (Panel& panel : L.panels) {
    panel.width = std::max(L.row_label_w + L.grid_w + (panel.p_gen ? kPGenGap + kPGenWidth : 0.0) +
                               18.0 + kBarWidth +
                               colour_bar_labels_width(m.get(), panel.vmax),
                           L.row_label_w + advance(m.get(), panel.caption, kPanelTitleFont, true));
    side_by_side += panel.width + kPanelGap;
  }
  // Side by side, so that rows line up, unless that makes the picture too wide to read:
  // then one above the other, so that columns line up.
  const bool stacked = side_by_side > kMaxSideBySide;
  const double panel_h = kPanelTitleFont + 10.0 + L.col_label_h +
                         std::max(L.grid_h + (p.coverage ? kCoverageGap + kCoverageHeight : 0.0),
                                  L.bar_h) +
                         kTickFont * 0.5;
  double x = kMargin, right = 0, bottom = y;
  for (Panel& panel : L.panels) {
    panel.x = x;
    panel.top = y;
    right = std::max(right, x + panel.width);
    bottom = y + panel_h;
    if (stacked) y += panel_h + kPanelGap;
    else x += panel.width + kPanelGap;
  }
  L.width = std::ceil(std::max(text_w + 2 * kMargin, right + kMargin));
  L.height = std::ceil(bottom + kMargin);
  return L;
}

// The coverage strip: one bar per source column from the strip's bottom, its full height
// L.coverage_top (at least 2), a dashed line at 1 labelled on the left.
void draw_coverage(cairo_t* cr, const Layout& L, double gx, double top, std::size_t cols) {
  const double bottom = top + kCoverageHeight, f = L.font;
  const auto y_of = [&](double c) { return bottom - kCoverageHeight * c / L.coverage_top; };
  cairo_set_source_rgb(cr, 0.96, 0.96, 0.96);
  cairo_rectangle(cr, gx, top, L.grid_w, kCoverageHeight);
  cairo_fill(cr);
  for (std::size_t j = 0; j < cols; ++j) {
    const double c = L.coverage[j];
    const double* rgb = c > 1.0 + 1e-3 ? kCopied : kCovered;
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    const double x = gx + static_cast<double>(j) * L.cell + L.cell * 0.15;
    cairo_rectangle(cr, x, y_of(c), L.cell * 0.7, bottom - y_of(c));
    cairo_fill(cr);
  }
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  cairo_set_line_width(cr, 0.8);
  const double dash[] = {3.0, 2.0};
  cairo_set_dash(cr, dash, 2, 0.0);
  cairo_move_to(cr, gx, y_of(1.0));
  cairo_rel_line_to(cr, L.grid_w, 0);
  cairo_stroke(cr);
  cairo_set_dash(cr, nullptr, 0, 0.0);
  text_at(cr, gx - 6.0 - advance(cr, "1", f), y_of(1.0) + f * 0.36, "1", f);
  text_at(cr, gx - 6.0 - advance(cr, "coverage", f), bottom - 2.0, "coverage", f);
}

void draw_panel(cairo_t* cr, const Layout& L, const Panel& panel, std::size_t cols) {
  const double gx = panel.x + L.row_label_w, f = L.font;
  const double gy = panel.top + kPanelTitleFont + 10.0 + L.col_label_h;
  const std::size_t rows = L.rows.size();
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  text_at(cr, gx, panel.top + kPanelTitleFont, panel.caption, kPanelTitleFont, true);
  // Column labels: upright ones end just above the grid, centred on their column.
  for (std::size_t j = 0; j < cols; ++j) {
    const double cx = gx + (static_cast<double>(j) + 0.5) * L.cell;
    if (L.upright) {
      cairo_save(cr);
      cairo_translate(cr, cx + f * 0.36, gy - 6.0);
      cairo_rotate(cr, -kPi / 2);
      text_at(cr, 0, 0, L.cols[j], f);
      cairo_restore(cr);
    } else {
      text_at(cr, cx - advance(cr, L.cols[j], f) / 2, gy - 6.0, L.cols[j], f);
    }
  }
  // Row labels, right-aligned against the grid; copied tokens in orange and bold.
  for (std::size_t i = 0; i < rows; ++i) {
    const double cy = gy + (static_cast<double>(i) + 0.5) * L.cell;
    const bool copied = !L.copied.empty() && L.copied[i];
    if (copied) cairo_set_source_rgb(cr, kCopied[0], kCopied[1], kCopied[2]);
    text_at(cr, gx - 6.0 - advance(cr, L.rows[i], f, copied), cy + f * 0.36, L.rows[i], f, copied);
    if (copied) cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  }
  // Cells, then thin white lines that keep equal neighbours apart.
  const std::vector<float>& v = *panel.values;
  for (std::size_t i = 0; i < rows; ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      set_rgb(cr, viridis(v[i * cols + j] / panel.vmax));
      cairo_rectangle(cr, gx + static_cast<double>(j) * L.cell, gy + static_cast<double>(i) * L.cell,
                      L.cell, L.cell);
      cairo_fill(cr);
    }
  }
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_set_line_width(cr, 0.6);
  for (std::size_t j = 1; j < cols; ++j) {
    cairo_move_to(cr, gx + static_cast<double>(j) * L.cell, gy);
    cairo_rel_line_to(cr, 0, L.grid_h);
  }
  for (std::size_t i = 1; i < rows; ++i) {
    cairo_move_to(cr, gx, gy + static_cast<double>(i) * L.cell);
    cairo_rel_line_to(cr, L.grid_w, 0);
  }
  cairo_stroke(cr);
  double bar_x = gx + L.grid_w + 18.0;
  if (panel.p_gen) {  // copy attention: p_gen of each output row as a bar on [0, 1]
    const double px = gx + L.grid_w + kPGenGap;
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text_at(cr, px, gy - 6.0, "p_gen", f);
    for (std::size_t i = 0; i < rows; ++i) {
      const double y0 = gy + static_cast<double>(i) * L.cell + 2.0, h = L.cell - 4.0;
      cairo_set_source_rgb(cr, 0.92, 0.92, 0.92);
      cairo_rectangle(cr, px, y0, kPGenWidth, h);
      cairo_fill(cr);
      const bool copied = !L.copied.empty() && L.copied[i];
      if (copied) cairo_set_source_rgb(cr, kCopied[0], kCopied[1], kCopied[2]);
      else cairo_set_source_rgb(cr, 0.23, 0.32, 0.55);
      cairo_rectangle(cr, px, y0, kPGenWidth * static_cast<double>((*L.p_gen)[i]), h);
      cairo_fill(cr);
    }
    bar_x += kPGenGap + kPGenWidth;
  }
  if (panel.coverage) draw_coverage(cr, L, gx, gy + L.grid_h + kCoverageGap, cols);
  // Colour bar, the largest value at the top, with five ticks.
  colour_bar(cr, bar_x, gy, L.bar_h, panel.vmax);
}

void draw(cairo_t* cr, const Layout& L, std::size_t cols) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  if (!L.title.empty()) text_at(cr, kMargin, L.title_y, L.title, kTitleFont, true);
  cairo_set_source_rgb(cr, 0.33, 0.33, 0.33);
  if (!L.subtitle.empty()) text_at(cr, kMargin, L.subtitle_y, L.subtitle, kSubtitleFont);
  cairo_set_source_rgb(cr, 0.6, 0.1, 0.1);
  if (!L.note.empty()) text_at(cr, kMargin, L.note_y, L.note, kSubtitleFont);
  cairo_set_source_rgb(cr, 0.33, 0.33, 0.33);
  if (!L.legend.empty()) text_at(cr, kMargin, L.legend_y, L.legend, kSubtitleFont);
  for (const Panel& panel : L.panels) draw_panel(cr, L, panel, cols);
}

std::string joined(const std::vector<std::string>& tokens) {
  std::string s;
  for (const auto& t : tokens) (s += s.empty() ? "" : " ") += t;
  return s;
}

}  // namespace

PictureSize picture_size(const AttentionPicture& picture) {
  const Layout L = layout_of(picture);
  return {static_cast<int>(L.width), static_cast<int>(L.height)};
}

std::string picture_svg(const AttentionPicture& picture) {
  const Layout L = layout_of(picture);
  return render_svg(
      L.width, L.height, [&](cairo_t* cr) { draw(cr, L, picture.source.size()); }, picture.title,
      "source: " + joined(picture.source) + "\noutput: " + joined(picture.output));
}

std::string picture_png(const AttentionPicture& picture, double scale) {
  const Layout L = layout_of(picture);
  return render_png(L.width, L.height, scale,
                    [&](cairo_t* cr) { draw(cr, L, picture.source.size()); });
}

}  // namespace heed::viz
