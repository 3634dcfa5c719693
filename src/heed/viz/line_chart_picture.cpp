#include "heed/viz/line_chart_picture.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/viz/cairo_drawing.h"
#include "heed/viz/colormap.h"
#include "heed/viz/svg_text.h"

namespace heed::viz {
namespace {

using namespace cairo_drawing;

constexpr double kMargin = 16.0;
constexpr double kTitleFont = 15.0;
constexpr double kAxisTitleFont = 12.0;
constexpr double kTickFont = 11.0;
constexpr double kLegendFont = 12.0;
constexpr double kLegendRow = kLegendFont + 8.0;
constexpr double kLegendLine = 26.0;  // two dashes and a half
constexpr double kPlotWidth = 480.0;
constexpr double kPlotHeight = 300.0;
constexpr std::size_t kMaxMarkers = 80;  // points per series with a round marker
constexpr double kMarker = 3.5;
constexpr double kLineWidth = 2.0;
constexpr std::size_t kMaxLabel = 48;   // code points in a legend entry
constexpr std::size_t kMaxTitle = 140;  // code points in a title
constexpr double kPi = 3.14159265358979323846;
constexpr Rgb kText{0x22, 0x22, 0x22}, kAxis{0x33, 0x33, 0x33}, kGrid{0xe4, 0xe4, 0xe4};

// A legend entry at most max code points long, shortened in the middle: a run's label is its
// directory, and what tells two runs apart is usually the end ("runs/…/lr-0.001: dev loss").
std::string middle_shortened(const std::string& text, std::size_t max) {
  const std::u32string cps = decode_utf8_escaped(text);
  if (cps.size() <= max) return drawable(text);
  const std::size_t head = max / 3, tail = max - 1 - head;
  return drawable(encode_utf8_escaped(cps.substr(0, head) + U"\u2026" + cps.substr(cps.size() - tail)));
}

// Round ticks over [lo, hi]; a single value (a constant learning rate, one validation) gets
// a range of half its size on either side instead of nice_ticks' +-1, which would flatten it.
std::vector<double> axis_ticks(double lo, double hi, int target) {
  if (hi - lo <= 1e-9 * std::abs(hi) && hi != 0.0) {
    lo -= std::abs(hi) * 0.5;
    hi += std::abs(hi) * 0.5;
  }
  return nice_ticks(lo, hi, target);
}

struct Layout {
  std::string title, x_title, y_title;
  std::vector<std::string> labels;  // legend, shortened
  std::vector<bool> markers;        // per series: short enough for a marker per point
  std::vector<double> x_ticks, y_ticks;
  std::vector<std::string> x_text, y_text;
  double left = 0, top = 0, right = 0, bottom = 0, legend_x = 0;
  int width = 0, height = 0;

  double px(double x) const {
    return left + (x - x_ticks.front()) / (x_ticks.back() - x_ticks.front()) * (right - left);
  }
  double py(double y) const {
    return bottom - (y - y_ticks.front()) / (y_ticks.back() - y_ticks.front()) * (bottom - top);
  }
};

Layout layout_of(const LineChart& c) {
  HEED_CHECK(!c.series.empty(), "line chart: no series");
  HEED_CHECK(c.categories.empty(), "line chart: a chart over categories is line_chart_svg's");
  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  for (const auto& s : c.series) {
    HEED_CHECK(!s.x.empty() && s.x.size() == s.y.size() && s.lower.empty() && s.upper.empty(),
               "line chart: series '", s.label, "' has ", s.x.size(), " x values for ",
               s.y.size(), " y values (a numeric x axis needs one x per y, and draws no intervals)");
    for (std::size_t i = 0; i < s.x.size(); ++i) {
      HEED_CHECK(std::isfinite(s.x[i]), "line chart: series '", s.label, "' has a non-finite x value");
      HEED_CHECK(!std::isinf(s.y[i]), "line chart: series '", s.label, "' has an infinite value");
      if (std::isnan(s.y[i])) continue;
      x_lo = std::min(x_lo, s.x[i]);
      x_hi = std::max(x_hi, s.x[i]);
      y_lo = std::min(y_lo, s.y[i]);
      y_hi = std::max(y_hi, s.y[i]);
    }
  }
  HEED_CHECK(std::isfinite(y_lo), "line chart: no series has a value to draw");

  Layout L;
  L.title = drawable(label_text(c.title, kMaxTitle));
  L.x_title = drawable(label_text(c.x_title, kMaxTitle));
  L.y_title = drawable(label_text(c.y_title, kMaxTitle));
  L.x_ticks = axis_ticks(x_lo, x_hi, 6);
  L.y_ticks = axis_ticks(y_lo, y_hi, 5);
  L.x_text = tick_labels(L.x_ticks);
  L.y_text = tick_labels(L.y_ticks);
  const Measure m;
  double tick_w = 0, legend_w = 0;
  for (const auto& t : L.y_text) tick_w = std::max(tick_w, advance(m.get(), t, kTickFont));
  for (const auto& s : c.series) {
    L.labels.push_back(middle_shortened(s.label.empty() ? "(unnamed)" : s.label, kMaxLabel));
    L.markers.push_back(s.y.size() <= kMaxMarkers);
    legend_w = std::max(legend_w, kLegendLine + 8.0 + advance(m.get(), L.labels.back(), kLegendFont));
  }
  L.left = kMargin + (L.y_title.empty() ? 0.0 : kAxisTitleFont + 10.0) + tick_w + 8.0;
  L.top = kMargin + (L.title.empty() ? 0.0 : kTitleFont + 14.0) + 6.0;
  L.bottom = L.top + kPlotHeight;
  L.right = L.left + kPlotWidth;
  L.legend_x = L.right + 24.0;
  // The last x tick's label is centred on the plot's right edge: half of it stands out.
  const double last_tick = advance(m.get(), L.x_text.back(), kTickFont) / 2;
  const double width = std::max({L.legend_x + legend_w + kMargin, L.right + last_tick + kMargin,
                                 2 * kMargin + advance(m.get(), L.title, kTitleFont, true)});
  double height = L.bottom + 8.0 + kTickFont + (L.x_title.empty() ? 0.0 : kAxisTitleFont + 14.0) + kMargin;
  height = std::max(height, L.top + static_cast<double>(c.series.size()) * kLegendRow + kMargin);
  L.width = static_cast<int>(std::ceil(width));
  L.height = static_cast<int>(std::ceil(height));
  return L;
}

void line_style(cairo_t* cr, const LineSeries& s, Rgb colour) {
  set_rgb(cr, colour);
  cairo_set_line_width(cr, kLineWidth);
  cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
  static const double dash[] = {6.0, 4.0};
  cairo_set_dash(cr, dash, s.dashed ? 2 : 0, 0.0);
}

void marker(cairo_t* cr, double x, double y, Rgb colour) {
  cairo_new_sub_path(cr);
  cairo_arc(cr, x, y, kMarker, 0, 2 * kPi);
  set_rgb(cr, colour);
  cairo_fill_preserve(cr);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_set_line_width(cr, 1.0);
  cairo_set_dash(cr, nullptr, 0, 0.0);
  cairo_stroke(cr);
}

void draw(cairo_t* cr, const LineChart& c, const Layout& L) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  set_rgb(cr, kText);
  if (!L.title.empty()) text_at(cr, kMargin, kMargin + kTitleFont, L.title, kTitleFont, true);

  // Grid and ticks.
  cairo_set_line_width(cr, 1.0);
  for (std::size_t k = 0; k < L.y_ticks.size(); ++k) {
    const double y = L.py(L.y_ticks[k]);
    set_rgb(cr, kGrid);
    cairo_move_to(cr, L.left, y);
    cairo_line_to(cr, L.right, y);
    cairo_stroke(cr);
    set_rgb(cr, kText);
    text_at(cr, L.left - 6.0 - advance(cr, L.y_text[k], kTickFont), y + kTickFont * 0.36, L.y_text[k],
            kTickFont);
  }
  for (std::size_t k = 0; k < L.x_ticks.size(); ++k) {
    const double x = L.px(L.x_ticks[k]);
    set_rgb(cr, kGrid);
    cairo_move_to(cr, x, L.top);
    cairo_line_to(cr, x, L.bottom);
    cairo_stroke(cr);
    set_rgb(cr, kText);
    text_at(cr, x - advance(cr, L.x_text[k], kTickFont) / 2, L.bottom + 6.0 + kTickFont, L.x_text[k],
            kTickFont);
  }
  set_rgb(cr, kAxis);
  cairo_move_to(cr, L.left, L.top);
  cairo_line_to(cr, L.left, L.bottom);
  cairo_line_to(cr, L.right, L.bottom);
  cairo_stroke(cr);
  set_rgb(cr, kText);
  if (!L.x_title.empty()) {
    text_at(cr, (L.left + L.right - advance(cr, L.x_title, kAxisTitleFont)) / 2, L.height - kMargin - 2.0,
            L.x_title, kAxisTitleFont);
  }
  if (!L.y_title.empty()) {
    cairo_save(cr);
    cairo_translate(cr, kMargin + kAxisTitleFont, (L.top + L.bottom) / 2);
    cairo_rotate(cr, -kPi / 2);
    text_at(cr, -advance(cr, L.y_title, kAxisTitleFont) / 2, 0.0, L.y_title, kAxisTitleFont);
    cairo_restore(cr);
  }

  // Lines first, then every marker, so that no line covers a point.
  auto colour_of = [&](std::size_t k) {
    return categorical(c.series[k].colour >= 0 ? static_cast<std::size_t>(c.series[k].colour) : k);
  };
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    const LineSeries& s = c.series[k];
    bool open = false;  // a NaN breaks the line
    for (std::size_t i = 0; i < s.y.size(); ++i) {
      if (std::isnan(s.y[i])) {
        open = false;
        continue;
      }
      (open ? cairo_line_to : cairo_move_to)(cr, L.px(s.x[i]), L.py(s.y[i]));
      open = true;
    }
    line_style(cr, s, colour_of(k));
    cairo_stroke(cr);
  }
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    if (!L.markers[k]) continue;
    const LineSeries& s = c.series[k];
    for (std::size_t i = 0; i < s.y.size(); ++i)
      if (!std::isnan(s.y[i])) marker(cr, L.px(s.x[i]), L.py(s.y[i]), colour_of(k));
  }

  // Legend: each series' line beside its label, without a marker, which would hide the
  // dashes that tell a training loss from the dev loss of the same colour.
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    const double y = L.top + 8.0 + static_cast<double>(k) * kLegendRow;
    line_style(cr, c.series[k], colour_of(k));
    cairo_move_to(cr, L.legend_x, y);
    cairo_line_to(cr, L.legend_x + kLegendLine, y);
    cairo_stroke(cr);
    set_rgb(cr, kText);
    text_at(cr, L.legend_x + kLegendLine + 8.0, y + kLegendFont * 0.36, L.labels[k], kLegendFont);
  }
}

// The chart in words: the axes and every series' label in full (the legend may shorten them).
std::string description(const LineChart& c) {
  std::string d = "x: " + c.x_title + "; y: " + c.y_title + "; lines:";
  for (std::size_t k = 0; k < c.series.size(); ++k)
    d += (k ? "; " : " ") + c.series[k].label + (c.series[k].dashed ? " (dashed)" : "");
  return d;
}

}  // namespace

LineChartSize line_chart_picture_size(const LineChart& chart) {
  const Layout L = layout_of(chart);
  return {L.width, L.height};
}

std::string line_chart_picture_svg(const LineChart& chart, const std::string& id_prefix) {
  const Layout L = layout_of(chart);
  return render_svg(L.width, L.height, [&](cairo_t* cr) { draw(cr, chart, L); }, chart.title,
                    description(chart), id_prefix);
}

std::string line_chart_picture_png(const LineChart& chart, double scale) {
  const Layout L = layout_of(chart);
  return render_png(L.width, L.height, scale, [&](cairo_t* cr) { draw(cr, chart, L); });
}

}  // namespace heed::viz
