#include "heed/viz/heatmap_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "heed/base/error.h"
#include "heed/viz/colormap.h"
#include "heed/viz/heatmap_style.h"
#include "heed/viz/svg_text.h"

namespace heed::viz {
namespace {

using namespace heatmap_style;

constexpr double kSin45 = 0.70710678118654752;
constexpr char kGradientId[] = "heed-viridis";

// "0.42" -> ".42" so that two decimals fit small cells.
std::string cell_value(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  std::string s = buf;
  if (s.rfind("0.", 0) == 0) s.erase(0, 1);
  if (s.rfind("-0.", 0) == 0) s.erase(1, 1);
  if (s == "-.00") s = ".00";
  return s;
}

struct PanelLayout {
  double cell = 28.0, label_font = 12.0;
  bool slanted = false;
  std::vector<std::string> col_labels, row_labels;
  double title_h = 0.0;      // panel caption
  double col_label_h = 0.0;  // column labels, between caption and grid
  double row_label_w = 0.0;  // row labels, left of the grid
  double grid_x = 0.0, grid_w = 0.0, grid_h = 0.0;
  double bar_x = 0.0, bar_h = 0.0;
  double width = 0.0;  // from the panel's left edge to its rightmost drawing

  double header() const { return title_h + col_label_h; }
};

void check_panel(const HeatmapPanel& p) {
  HEED_CHECK(!p.rows.empty() && !p.columns.empty(), "heat map '", p.title,
             "': needs at least one row and one column, got ", p.rows.size(), " x ",
             p.columns.size());
  HEED_CHECK(p.values.size() == p.rows.size() * p.columns.size(), "heat map '", p.title,
             "': ", p.values.size(), " values for ", p.rows.size(), " rows x ", p.columns.size(),
             " columns");
  HEED_CHECK(std::isfinite(p.vmin) && std::isfinite(p.vmax) && p.vmax > p.vmin, "heat map '",
             p.title, "': colour range [", p.vmin, ", ", p.vmax, "] is empty");
  for (std::size_t i = 0; i < p.values.size(); ++i) {
    HEED_CHECK(std::isfinite(p.values[i]), "heat map '", p.title, "': value [",
               i / p.columns.size(), "][", i % p.columns.size(), "] is not finite");
  }
}

PanelLayout layout_panel(const HeatmapPanel& p, const HeatmapOptions& o) {
  PanelLayout L;
  L.cell = o.cell_size > 0.0 ? o.cell_size : heatmap_cell_size(p.rows.size(), p.columns.size());
  L.label_font = std::clamp(L.cell * 0.45, 9.0, 12.0);
  const double f = L.label_font;
  double max_col_w = 0.0, max_row_w = 0.0;
  for (const auto& t : p.columns) {
    L.col_labels.push_back(label_text(t, kMaxLabel));
    max_col_w = std::max(max_col_w, text_width(L.col_labels.back(), f));
  }
  for (const auto& t : p.rows) {
    L.row_labels.push_back(label_text(t, kMaxLabel));
    max_row_w = std::max(max_row_w, text_width(L.row_labels.back(), f));
  }
  L.slanted = max_col_w > L.cell - 4.0;
  L.title_h = p.title.empty() ? 0.0 : kPanelTitleFont + 10.0;
  L.col_label_h = L.slanted ? (max_col_w + f) * kSin45 + 8.0 : f + 8.0;
  L.row_label_w = max_row_w + 8.0;
  L.grid_x = L.row_label_w;
  L.grid_w = L.cell * static_cast<double>(p.columns.size());
  L.grid_h = L.cell * static_cast<double>(p.rows.size());
  L.bar_x = L.grid_x + L.grid_w + 18.0;
  L.bar_h = std::max(L.grid_h, kBarMinHeight);
  double tick_w = 0.0;
  for (int k = 0; k <= 4; ++k) {
    tick_w = std::max(tick_w, text_width(tick_value(p.vmin + (p.vmax - p.vmin) * k / 4.0),
                                         kTickFont));
  }
  L.width = L.bar_x + kBarWidth + 9.0 + tick_w;
  if (L.slanted) {  // labels lean right, past the grid's edge
    for (std::size_t j = 0; j < L.col_labels.size(); ++j) {
      const double x = L.grid_x + (static_cast<double>(j) + 0.5) * L.cell;
      L.width = std::max(L.width, x + (text_width(L.col_labels[j], f) + f) * kSin45);
    }
  }
  if (!p.title.empty()) {
    L.width = std::max(L.width, L.grid_x + text_width(label_text(p.title, kMaxTitle),
                                                      kPanelTitleFont * 1.08));
  }
  return L;
}

void draw_panel(std::string& s, const HeatmapPanel& p, const PanelLayout& L, double x0, double y0,
                double grid_y, bool show_values) {
  const double f = L.label_font;
  const double gx = x0 + L.grid_x, gy = y0 + grid_y;
  s += "<g class=\"panel\">\n";
  if (!p.title.empty()) {
    s += "<text class=\"panel-title\" x=\"" + svg_number(gx) + "\" y=\"" +
         svg_number(gy - L.col_label_h - 8.0) + "\" font-size=\"" + svg_number(kPanelTitleFont) +
         "\" font-weight=\"bold\">" + xml_escape(label_text(p.title, kMaxTitle)) + "</text>\n";
  }
  // Column labels (source tokens); the full token is the tooltip when shortened.
  for (std::size_t j = 0; j < L.col_labels.size(); ++j) {
    const double cx = gx + (static_cast<double>(j) + 0.5) * L.cell;
    const std::string tip = L.col_labels[j] == p.columns[j]
                                ? std::string()
                                : "<title>" + xml_escape(p.columns[j]) + "</title>";
    if (L.slanted) {
      const double x = cx - f * 0.15, y = gy - 6.0;
      s += "<text class=\"col-label\" x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) +
           "\" transform=\"rotate(-45 " + svg_number(x) + " " + svg_number(y) + ")\">" + tip +
           xml_escape(L.col_labels[j]) + "</text>\n";
    } else {
      s += "<text class=\"col-label\" x=\"" + svg_number(cx) + "\" y=\"" + svg_number(gy - 6.0) +
           "\" text-anchor=\"middle\">" + tip + xml_escape(L.col_labels[j]) + "</text>\n";
    }
  }
  // Row labels (output tokens), right-aligned against the grid.
  for (std::size_t i = 0; i < L.row_labels.size(); ++i) {
    const double cy = gy + (static_cast<double>(i) + 0.5) * L.cell;
    const std::string tip = L.row_labels[i] == p.rows[i]
                                ? std::string()
                                : "<title>" + xml_escape(p.rows[i]) + "</title>";
    s += "<text class=\"row-label\" x=\"" + svg_number(gx - 6.0) + "\" y=\"" + svg_number(cy + f * 0.36) +
         "\" text-anchor=\"end\">" + tip + xml_escape(L.row_labels[i]) + "</text>\n";
  }
  // Cells.
  const std::size_t cols = p.columns.size();
  const double range = p.vmax - p.vmin;
  const double vf = L.cell * 0.34;
  for (std::size_t i = 0; i < p.rows.size(); ++i) {
    for (std::size_t j = 0; j < cols; ++j) {
      const double v = p.values[i * cols + j];
      const Rgb c = viridis((v - p.vmin) / range);
      const double x = gx + static_cast<double>(j) * L.cell;
      const double y = gy + static_cast<double>(i) * L.cell;
      char tipv[32];
      std::snprintf(tipv, sizeof tipv, "%.3f", v);
      s += "<rect class=\"cell\" x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\" width=\"" +
           svg_number(L.cell) + "\" height=\"" + svg_number(L.cell) + "\" fill=\"" + hex(c) + "\"><title>" +
           xml_escape(p.rows[i]) + " \xE2\x86\x90 " + xml_escape(p.columns[j]) + ": " + tipv +
           "</title></rect>\n";
      if (show_values) {
        s += "<text class=\"value\" x=\"" + svg_number(x + L.cell / 2) + "\" y=\"" +
             svg_number(y + L.cell / 2 + vf * 0.36) + "\" font-size=\"" + svg_number(vf) +
             "\" text-anchor=\"middle\" fill=\"" + (luminance(c) > 0.35 ? "#000000" : "#ffffff") +
             "\">" + cell_value(v) + "</text>\n";
      }
    }
  }
  // Thin white lines between cells keep equal neighbours apart.
  s += "<g stroke=\"#ffffff\" stroke-width=\"0.6\">\n";
  for (std::size_t j = 1; j < cols; ++j) {
    const double x = gx + static_cast<double>(j) * L.cell;
    s += "<line x1=\"" + svg_number(x) + "\" y1=\"" + svg_number(gy) + "\" x2=\"" + svg_number(x) + "\" y2=\"" +
         svg_number(gy + L.grid_h) + "\"/>\n";
  }
  for (std::size_t i = 1; i < p.rows.size(); ++i) {
    const double y = gy + static_cast<double>(i) * L.cell;
    s += "<line x1=\"" + svg_number(gx) + "\" y1=\"" + svg_number(y) + "\" x2=\"" + svg_number(gx + L.grid_w) +
         "\" y2=\"" + svg_number(y) + "\"/>\n";
  }
  s += "</g>\n";
  // Colour bar: vmax at the top.
  const double bx = x0 + L.bar_x;
  s += "<rect class=\"colorbar\" x=\"" + svg_number(bx) + "\" y=\"" + svg_number(gy) + "\" width=\"" +
       svg_number(kBarWidth) + "\" height=\"" + svg_number(L.bar_h) + "\" fill=\"url(#" + kGradientId +
       ")\" stroke=\"#555555\" stroke-width=\"0.5\"/>\n";
  for (int k = 0; k <= 4; ++k) {
    const double y = gy + L.bar_h * (1.0 - k / 4.0);
    s += "<line class=\"tick\" x1=\"" + svg_number(bx + kBarWidth) + "\" y1=\"" + svg_number(y) + "\" x2=\"" +
         svg_number(bx + kBarWidth + 4.0) + "\" y2=\"" + svg_number(y) + "\" stroke=\"#555555\"/>\n";
    s += "<text class=\"tick-label\" x=\"" + svg_number(bx + kBarWidth + 6.0) + "\" y=\"" +
         svg_number(y + kTickFont * 0.36) + "\" font-size=\"" + svg_number(kTickFont) + "\">" +
         tick_value(p.vmin + (p.vmax - p.vmin) * k / 4.0) + "</text>\n";
  }
  s += "</g>\n";
}

}  // namespace

double heatmap_cell_size(std::size_t rows, std::size_t cols) {
  const std::size_t n = std::max(rows, cols);
  if (n <= 40) return 28.0;
  if (n <= 80) return 20.0;
  return 14.0;
}

std::string heatmaps_svg(std::span<const HeatmapPanel> panels, const HeatmapOptions& o) {
  HEED_CHECK(!panels.empty(), "heat map: no panels to draw");
  for (const auto& p : panels) check_panel(p);
  std::vector<PanelLayout> layouts;
  double header = 0.0;  // shared, so the grids' top edges line up
  for (const auto& p : panels) {
    layouts.push_back(layout_panel(p, o));
    header = std::max(header, layouts.back().header());
  }
  const std::string title = label_text(o.title, kMaxTitle);
  const std::string subtitle = label_text(o.subtitle, kMaxTitle);
  double top = kMargin, width = 0.0;
  std::string text;
  if (!o.title.empty()) {
    top += kTitleFont;
    text += "<text class=\"title\" x=\"" + svg_number(kMargin) + "\" y=\"" + svg_number(top) +
            "\" font-size=\"" + svg_number(kTitleFont) + "\" font-weight=\"bold\">" + xml_escape(title) +
            "</text>\n";
    width = std::max(width, text_width(title, kTitleFont * 1.08));
    top += 6.0;
  }
  if (!o.subtitle.empty()) {
    top += kSubtitleFont + 2.0;
    text += "<text class=\"subtitle\" x=\"" + svg_number(kMargin) + "\" y=\"" + svg_number(top) +
            "\" font-size=\"" + svg_number(kSubtitleFont) + "\" fill=\"#555555\">" +
            xml_escape(subtitle) + "</text>\n";
    width = std::max(width, text_width(subtitle, kSubtitleFont));
    top += 4.0;
  }
  if (top > kMargin) top += 10.0;

  double x = kMargin, bottom = 0.0;
  std::string body;
  for (std::size_t k = 0; k < panels.size(); ++k) {
    const PanelLayout& L = layouts[k];
    draw_panel(body, panels[k], L, x, top, header, o.show_values);
    bottom = std::max(bottom, top + header + L.bar_h + kTickFont * 0.5);
    x += L.width + (k + 1 < panels.size() ? kPanelGap : 0.0);
  }
  width = std::max(width + 2 * kMargin, x + kMargin);
  const double height = bottom + kMargin;

  std::string s;
  s.reserve(body.size() + text.size() + 1024);
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + svg_number(std::ceil(width)) +
       "\" height=\"" + svg_number(std::ceil(height)) + "\" viewBox=\"0 0 " + svg_number(std::ceil(width)) +
       " " + svg_number(std::ceil(height)) +
       "\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\" font-size=\"12\">\n";
  s += "<defs><linearGradient id=\"";
  s += kGradientId;
  s += "\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">";
  for (int k = 0; k <= 10; ++k) {
    s += "<stop offset=\"" + svg_number(k / 10.0) + "\" stop-color=\"" + hex(viridis(k / 10.0)) + "\"/>";
  }
  s += "</linearGradient></defs>\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  s += text;
  s += body;
  s += "</svg>\n";
  return s;
}

std::string heatmap_svg(const HeatmapPanel& panel, const HeatmapOptions& options) {
  return heatmaps_svg(std::span<const HeatmapPanel>(&panel, 1), options);
}

std::string heatmaps_side_by_side_svg(const HeatmapPanel& left, const HeatmapPanel& right,
                                      const HeatmapOptions& options) {
  const HeatmapPanel both[2] = {left, right};
  return heatmaps_svg(both, options);
}

}  // namespace heed::viz
