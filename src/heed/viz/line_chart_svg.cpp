#include "heed/viz/line_chart_svg.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "heed/base/error.h"
#include "heed/viz/colormap.h"
#include "heed/viz/svg_text.h"

namespace heed::viz {
namespace {

constexpr double kMargin = 16.0;
constexpr double kTitleFont = 15.0;
constexpr double kAxisTitleFont = 12.0;
constexpr double kTickFont = 11.0;
constexpr double kNoteFont = 9.5;
constexpr double kLegendFont = 12.0;
constexpr double kPlotHeight = 300.0;
constexpr double kMinPlotWidth = 360.0;
constexpr double kMinSpacing = 56.0;  // px per category
constexpr double kMarker = 3.5;
constexpr std::size_t kMaxLabel = 40;   // code points in a legend entry or x label
constexpr std::size_t kMaxTitle = 140;  // code points in a title

std::string fixed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find_first_not_of("-0.") == std::string::npos && s[0] == '-') s.erase(0, 1);  // "-0.0"
  return s;
}

// Decimals that show every multiple of step exactly (step = m * 10^e, m in 1, 2, 2.5, 5).
int tick_decimals(const std::vector<double>& ticks) {
  if (ticks.size() < 2) return 0;
  const double step = ticks[1] - ticks[0];
  for (int d = 0; d < 8; ++d) {
    const double scaled = step * std::pow(10.0, d);
    if (std::abs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled)) return d;
  }
  return 8;
}

// A path command ("M", "L") with its point. Appended piece by piece: GCC 12 warns
// (-Wrestrict, falsely) about a one-letter literal + std::string.
void path_to(std::string& d, char command, double x, double y) {
  d += command;
  d += svg_number(x);
  d += ' ';
  d += svg_number(y);
}

bool finite(double v) { return std::isfinite(v); }

struct Point {
  double x = 0, y = 0, lo = 0, hi = 0;
  bool has = false, has_interval = false;
};

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target) {
  HEED_CHECK(finite(lo) && finite(hi), "nice_ticks: the range must be finite");
  if (hi < lo) std::swap(lo, hi);
  if (hi - lo < 1e-12 * std::max(1.0, std::abs(hi))) {
    lo -= 1.0;
    hi += 1.0;
  }
  target = std::max(target, 1);
  const double raw = (hi - lo) / target;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10.0 * mag;
  for (double m : {1.0, 2.0, 2.5, 5.0}) {
    if (m * mag >= raw * (1 - 1e-9)) {
      step = m * mag;
      break;
    }
  }
  const double first = std::floor(lo / step + 1e-9), last = std::ceil(hi / step - 1e-9);
  std::vector<double> ticks;
  for (double k = first; k <= last + 0.5; k += 1.0) {
    const double t = k * step;
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  }
  return ticks;
}

std::vector<std::string> tick_labels(const std::vector<double>& ticks) {
  std::vector<std::string> out;
  for (double t : ticks) out.push_back(fixed(t, tick_decimals(ticks)));
  return out;
}

std::string line_chart_svg(const LineChart& c) {
  HEED_CHECK(!c.series.empty(), "line chart: no series");
  const std::size_t n = c.categories.size();
  HEED_CHECK(n > 0, "line chart: no categories (a numeric x axis is line_chart_picture.h's)");
  HEED_CHECK(c.notes.empty() || c.notes.size() == n, "line chart: ", c.notes.size(), " notes for ",
             n, " categories");
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& s : c.series) {
    HEED_CHECK(s.y.size() == n, "line chart: series '", s.label, "' has ", s.y.size(),
               " values for ", n, " categories");
    HEED_CHECK((s.lower.empty() && s.upper.empty()) ||
                   (s.lower.size() == n && s.upper.size() == n),
               "line chart: series '", s.label, "' needs an interval per category or none");
    for (const auto* v : {&s.y, &s.lower, &s.upper}) {
      for (double x : *v) {
        HEED_CHECK(!std::isinf(x), "line chart: series '", s.label, "' has an infinite value");
        if (finite(x)) {
          lo = std::min(lo, x);
          hi = std::max(hi, x);
        }
      }
    }
  }
  HEED_CHECK(finite(lo), "line chart: no series has a value to draw");
  const std::vector<double> ticks = nice_ticks(lo, hi);
  const double y_min = ticks.front(), y_max = ticks.back();

  // Horizontal layout: y title, tick labels, plot, legend.
  std::vector<std::string> cats, notes, labels, tick_text;
  double spacing = kMinSpacing, tick_w = 0, legend_w = 0;
  for (std::size_t i = 0; i < n; ++i) {
    cats.push_back(label_text(c.categories[i], kMaxLabel));
    notes.push_back(c.notes.empty() ? "" : label_text(c.notes[i], kMaxLabel));
    spacing = std::max(
        {spacing, text_width(cats[i], kTickFont) + 14.0, text_width(notes[i], kNoteFont) + 14.0});
  }
  tick_text = tick_labels(ticks);
  for (const auto& t : tick_text) tick_w = std::max(tick_w, text_width(t, kTickFont));
  for (const auto& s : c.series) {
    labels.push_back(label_text(s.label.empty() ? "(unnamed)" : s.label, kMaxLabel));
    legend_w = std::max(legend_w, 32.0 + text_width(labels.back(), kLegendFont));
  }
  const std::string title = label_text(c.title, kMaxTitle);
  const double plot_w = std::max(kMinPlotWidth, spacing * static_cast<double>(n));
  spacing = plot_w / static_cast<double>(n);
  const double left = kMargin + (c.y_title.empty() ? 0.0 : kAxisTitleFont + 10.0) + tick_w + 8.0;
  const double top = kMargin + (title.empty() ? 0.0 : kTitleFont + 14.0) + 6.0;
  const double bottom = top + kPlotHeight;
  const double right = left + plot_w;
  const double legend_x = right + 24.0;
  const double width =
      std::max(legend_x + legend_w + kMargin, kMargin * 2 + text_width(title, kTitleFont * 1.08));
  double height = bottom + 8.0 + kTickFont;
  if (!c.notes.empty()) height += kNoteFont + 4.0;
  if (!c.x_title.empty()) height += kAxisTitleFont + 14.0;
  height += kMargin;
  height =
      std::max(height, top + static_cast<double>(c.series.size()) * (kLegendFont + 8.0) + kMargin);

  auto px = [&](std::size_t i, std::size_t s) {
    double x = left + (static_cast<double>(i) + 0.5) * spacing;
    if (c.intervals == IntervalStyle::bars && c.series.size() > 1) {  // keep bars apart
      const double step = std::min(6.0, spacing * 0.5 / static_cast<double>(c.series.size()));
      x += (static_cast<double>(s) - 0.5 * static_cast<double>(c.series.size() - 1)) * step;
    }
    return x;
  };
  auto py = [&](double v) { return bottom - (v - y_min) / (y_max - y_min) * kPlotHeight; };

  std::string s;
  s += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + svg_number(std::ceil(width)) +
       "\" height=\"" + svg_number(std::ceil(height)) + "\" viewBox=\"0 0 " + svg_number(std::ceil(width)) + " " +
       svg_number(std::ceil(height)) +
       "\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\" font-size=\"12\">\n";
  s += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n";
  if (!title.empty()) {
    s += "<text class=\"title\" x=\"" + svg_number(kMargin) + "\" y=\"" + svg_number(kMargin + kTitleFont) +
         "\" font-size=\"" + svg_number(kTitleFont) + "\" font-weight=\"bold\">" + xml_escape(title) +
         "</text>\n";
  }

  // Grid, y ticks, axes.
  for (std::size_t k = 0; k < ticks.size(); ++k) {
    const double y = py(ticks[k]);
    s += "<line x1=\"" + svg_number(left) + "\" y1=\"" + svg_number(y) + "\" x2=\"" + svg_number(right) + "\" y2=\"" +
         svg_number(y) + "\" stroke=\"#e4e4e4\"/>\n";
    s += "<text class=\"tick-label\" x=\"" + svg_number(left - 6.0) + "\" y=\"" +
         svg_number(y + kTickFont * 0.36) + "\" font-size=\"" + svg_number(kTickFont) +
         "\" text-anchor=\"end\">" + tick_text[k] + "</text>\n";
  }
  s += "<path class=\"axes\" d=\"M" + svg_number(left) + " " + svg_number(top) + "V" + svg_number(bottom) + "H" +
       svg_number(right) + "\" fill=\"none\" stroke=\"#333333\"/>\n";
  for (std::size_t i = 0; i < cats.size(); ++i) {
    const double x = left + (static_cast<double>(i) + 0.5) * spacing;
    s += "<line x1=\"" + svg_number(x) + "\" y1=\"" + svg_number(bottom) + "\" x2=\"" + svg_number(x) + "\" y2=\"" +
         svg_number(bottom + 4.0) + "\" stroke=\"#333333\"/>\n";
    s += "<text class=\"x-label\" x=\"" + svg_number(x) + "\" y=\"" + svg_number(bottom + 6.0 + kTickFont) +
         "\" font-size=\"" + svg_number(kTickFont) + "\" text-anchor=\"middle\">" + xml_escape(cats[i]) +
         "</text>\n";
    if (!notes[i].empty()) {
      s += "<text class=\"x-note\" x=\"" + svg_number(x) + "\" y=\"" +
           svg_number(bottom + 10.0 + kTickFont + kNoteFont) + "\" font-size=\"" + svg_number(kNoteFont) +
           "\" fill=\"#666666\" text-anchor=\"middle\">" + xml_escape(notes[i]) + "</text>\n";
    }
  }
  if (!c.x_title.empty()) {
    const double y = height - kMargin - 2.0;
    s += "<text class=\"axis-title\" x=\"" + svg_number((left + right) / 2) + "\" y=\"" + svg_number(y) +
         "\" font-size=\"" + svg_number(kAxisTitleFont) + "\" text-anchor=\"middle\">" +
         xml_escape(label_text(c.x_title, kMaxTitle)) + "</text>\n";
  }
  if (!c.y_title.empty()) {
    const double x = kMargin + kAxisTitleFont, y = (top + bottom) / 2;
    s += "<text class=\"axis-title\" x=\"" + svg_number(x) + "\" y=\"" + svg_number(y) + "\" font-size=\"" +
         svg_number(kAxisTitleFont) + "\" text-anchor=\"middle\" transform=\"rotate(-90 " + svg_number(x) + " " +
         svg_number(y) + ")\">" + xml_escape(label_text(c.y_title, kMaxTitle)) + "</text>\n";
  }

  // Series: interval, line, markers (all intervals first, so no band covers a line).
  std::vector<std::vector<Point>> points(c.series.size());
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    const LineSeries& ser = c.series[k];
    for (std::size_t i = 0; i < n; ++i) {
      Point p;
      p.x = px(i, k);
      p.has = finite(ser.y[i]);
      if (p.has) p.y = py(ser.y[i]);
      p.has_interval = p.has && !ser.lower.empty() && finite(ser.lower[i]) && finite(ser.upper[i]);
      if (p.has_interval) {
        p.lo = py(ser.lower[i]);
        p.hi = py(ser.upper[i]);
      }
      points[k].push_back(p);
    }
  }
  auto colour_of = [&](std::size_t k) {
    return hex(categorical(c.series[k].colour >= 0 ? static_cast<std::size_t>(c.series[k].colour) : k));
  };
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    const std::string colour = colour_of(k);
    const auto& P = points[k];
    std::string band, bars;
    auto bar = [&](const Point& p) {
      path_to(bars, 'M', p.x, p.lo);
      bars += 'V';
      bars += svg_number(p.hi);
      path_to(bars, 'M', p.x - 4, p.lo);
      bars += "h8";
      path_to(bars, 'M', p.x - 4, p.hi);
      bars += "h8";
    };
    for (std::size_t i = 0; i < P.size();) {
      if (!P[i].has_interval) {
        ++i;
        continue;
      }
      std::size_t j = i;
      while (j < P.size() && P[j].has_interval) ++j;
      if (c.intervals == IntervalStyle::bars || j - i == 1) {  // a lone point: a bar
        for (std::size_t m = i; m < j; ++m) bar(P[m]);
      } else {
        path_to(band, 'M', P[i].x, P[i].hi);
        for (std::size_t m = i + 1; m < j; ++m) path_to(band, 'L', P[m].x, P[m].hi);
        for (std::size_t m = j; m-- > i;) path_to(band, 'L', P[m].x, P[m].lo);
        band += "Z";
      }
      i = j;
    }
    if (!band.empty()) {
      s += "<path class=\"band\" d=\"" + band + "\" fill=\"" + colour +
           "\" fill-opacity=\"0.15\" stroke=\"none\"/>\n";
    }
    if (!bars.empty()) {
      s += "<path class=\"bars\" d=\"" + bars + "\" fill=\"none\" stroke=\"" + colour +
           "\" stroke-width=\"1.2\"/>\n";
    }
  }
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    const std::string colour = colour_of(k);
    const auto& P = points[k];
    const LineSeries& ser = c.series[k];
    std::string d;
    for (std::size_t i = 0; i < P.size(); ++i) {
      if (!P[i].has) continue;
      path_to(d, i > 0 && P[i - 1].has ? 'L' : 'M', P[i].x, P[i].y);
    }
    s += "<path class=\"line\" d=\"" + d + "\" fill=\"none\" stroke=\"" + colour +
         "\" stroke-width=\"2\" stroke-linejoin=\"round\"" +
         (ser.dashed ? " stroke-dasharray=\"6 4\"" : "") + "/>\n";
    s += "<g class=\"markers\" fill=\"" + colour + "\" stroke=\"#ffffff\">\n";
    for (std::size_t i = 0; i < P.size(); ++i) {
      if (!P[i].has) continue;
      std::string tip = labels[k] + ", " + cats[i] + ": " + fixed(ser.y[i], 2);
      if (P[i].has_interval)
        tip += " [" + fixed(ser.lower[i], 2) + ", " + fixed(ser.upper[i], 2) + "]";
      if (!notes[i].empty()) tip += " (" + notes[i] + ")";
      s += "<circle cx=\"" + svg_number(P[i].x) + "\" cy=\"" + svg_number(P[i].y) + "\" r=\"" + svg_number(kMarker) +
           "\"><title>" + xml_escape(tip) + "</title></circle>\n";
    }
    s += "</g>\n";
  }

  // Legend.
  for (std::size_t k = 0; k < c.series.size(); ++k) {
    const std::string colour = colour_of(k);
    const double y = top + 8.0 + static_cast<double>(k) * (kLegendFont + 8.0);
    s += "<g class=\"legend\"><line x1=\"" + svg_number(legend_x) + "\" y1=\"" + svg_number(y) + "\" x2=\"" +
         svg_number(legend_x + 22) + "\" y2=\"" + svg_number(y) + "\" stroke=\"" + colour +
         "\" stroke-width=\"2\"" + (c.series[k].dashed ? " stroke-dasharray=\"6 4\"" : "") + "/><circle cx=\"" + svg_number(legend_x + 11) + "\" cy=\"" + svg_number(y) +
         "\" r=\"" + svg_number(kMarker) + "\" fill=\"" + colour + "\" stroke=\"#ffffff\"/><text x=\"" +
         svg_number(legend_x + 30) + "\" y=\"" + svg_number(y + kLegendFont * 0.36) + "\" font-size=\"" +
         svg_number(kLegendFont) + "\">" + xml_escape(labels[k]) + "</text></g>\n";
  }
  s += "</svg>\n";
  return s;
}

}  // namespace heed::viz
