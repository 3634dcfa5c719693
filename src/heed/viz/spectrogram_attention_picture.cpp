#include "heed/viz/spectrogram_attention_picture.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "heed/base/error.h"
#include "heed/viz/cairo_drawing.h"
#include "heed/viz/colormap.h"
#include "heed/viz/heatmap_style.h"
#include "heed/viz/svg_text.h"

namespace heed::viz {
namespace {

using namespace heatmap_style;
using namespace cairo_drawing;

constexpr double kTargetWidth = 960.0;    // px the spectrogram aims at
constexpr double kTargetHeight = 160.0;   // likewise its height
constexpr double kRowHeight = 16.0;       // one symbol's attention row
constexpr double kRowGap = 3.0;
constexpr double kSymbolFont = 12.0;
constexpr double kTickLength = 4.0;

struct Layout {
  std::string title, note;
  std::vector<std::string> labels, weights;  // per symbol
  std::vector<std::string> bin_ticks;        // the mel axis: 0, the middle, the top
  double title_y = 0, note_y = 0;
  int zx = 1, zy = 1;                        // px per frame, px per mel bin
  double x0 = 0, spec_top = 0, spec_w = 0, spec_h = 0;
  double rows_top = 0, axis_y = 0;
  double weights_x = 0, bar_x = 0, bar_top = 0, bar_h = 0;
  double tick_step = 1.0;  // seconds between ticks of the time axis
  double width = 0, height = 0;

  double row_y(std::size_t i) const {
    return rows_top + static_cast<double>(i) * (kRowHeight + kRowGap);
  }
};

float largest(const std::vector<float>& v) {
  return v.empty() ? 0.0f : *std::max_element(v.begin(), v.end());
}

// The weight drawn in full yellow: the row's largest, or twice the even share when larger.
double colour_scale(const std::vector<float>& v) {
  double sum = 0;
  for (float x : v) sum += x;
  return std::max(static_cast<double>(largest(v)),
                  v.empty() ? 0.0 : 2.0 * sum / static_cast<double>(v.size()));
}

std::string fixed(const char* format, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Seconds between ticks: the smallest of 1-2-5 steps that leaves at least min_px between them.
double tick_step(double px_per_second, double min_px) {
  for (double decade = 0.01;; decade *= 10)
    for (double m : {1.0, 2.0, 5.0})
      if (m * decade * px_per_second >= min_px) return m * decade;
}

std::string seconds_text(double s, double step) {
  return fixed(step < 0.1 ? "%.2f" : step < 1.0 ? "%.1f" : "%.0f", s);
}

Layout layout_of(const SpectrogramAttentionPicture& p) {
  check_spectrogram_attention_picture(p);
  const Measure m;
  Layout L;
  L.title = drawable(label_text(p.title, kMaxTitle));
  const std::int64_t n = annotations_over(p.frames, p.frames_per_annotation);
  L.note = "log-mel spectrogram (" + std::to_string(p.mels) +
           " bins, the loudest 70 dB in magma); beneath, each symbol's attention over the " +
           std::to_string(n) + " listener annotations of " +
           fixed("%.0f", 1000.0 * p.seconds_per_frame *
                             static_cast<double>(p.frames_per_annotation)) +
           " ms, full colour at its largest weight";
  for (std::size_t i = 0; i < p.symbols.size(); ++i) {
    L.labels.push_back(drawable(label_text(p.symbols[i], kMaxLabel)));
    L.weights.push_back("\xCE\xB1 " + fixed("%.2f", largest(p.attention[i])));
  }
  L.bin_ticks = {"0", std::to_string(p.mels / 2), std::to_string(p.mels)};
  double y = kMargin, text_w = 0;
  if (!L.title.empty()) {
    L.title_y = y += kTitleFont;
    text_w = std::max(text_w, advance(m.get(), L.title, kTitleFont, true));
    y += 6.0;
  }
  L.note_y = y += kSubtitleFont + 2.0;
  text_w = std::max(text_w, advance(m.get(), L.note, kSubtitleFont));
  y += 12.0 + kTickFont;  // "mel bin" above the axis
  L.spec_top = y;

  L.zx = static_cast<int>(
      std::clamp(std::floor(kTargetWidth / static_cast<double>(p.frames)), 1.0, 8.0));
  L.zy = static_cast<int>(
      std::clamp(std::round(kTargetHeight / static_cast<double>(p.mels)), 1.0, 16.0));
  L.spec_w = static_cast<double>(p.frames * L.zx);
  L.spec_h = static_cast<double>(p.mels * L.zy);
  double left = advance(m.get(), "mel bin", kTickFont);
  for (const auto& t : L.bin_ticks) left = std::max(left, advance(m.get(), t, kTickFont) + 8.0);
  for (const auto& l : L.labels) left = std::max(left, advance(m.get(), l, kSymbolFont, true) + 8.0);
  L.x0 = kMargin + left;
  L.rows_top = L.spec_top + L.spec_h + 10.0;
  const double rows_h = p.symbols.empty()
                            ? 0.0
                            : static_cast<double>(p.symbols.size()) * (kRowHeight + kRowGap) - kRowGap;
  L.axis_y = L.rows_top + rows_h + 4.0;
  L.tick_step = tick_step(static_cast<double>(L.zx) / p.seconds_per_frame, 56.0);
  double weights_w = 0;
  for (const auto& w : L.weights) weights_w = std::max(weights_w, advance(m.get(), w, kTickFont));
  L.weights_x = L.x0 + L.spec_w + 6.0;
  L.bar_x = L.weights_x + weights_w + (weights_w > 0 ? 14.0 : 8.0);
  const double right =
      L.bar_x + std::max(kBarWidth + colour_bar_labels_width(m.get(), 1.0),
                         advance(m.get(), "\xCE\xB1 / largest", kTickFont));
  L.width = std::ceil(std::max(text_w + 2 * kMargin, right + kMargin));
  // The colour bar ends with the last row and reaches up beside the spectrogram when the rows
  // are fewer than its least height; its caption stands above it.
  L.bar_h = std::max(rows_h, kBarMinHeight);
  L.bar_top = L.rows_top + rows_h - L.bar_h;
  L.height = std::ceil(L.axis_y + kTickLength + 4.0 + 2 * kTickFont + kMargin);
  if (L.bar_top - kTickFont - 6.0 < L.spec_top - kTickFont - 6.0) {  // above the spectrogram
    const double shift = L.spec_top - L.bar_top;
    L.spec_top += shift, L.rows_top += shift, L.axis_y += shift, L.bar_top += shift;
    L.height += shift;
  }
  return L;
}

// rgb (rows x cols) enlarged zx times across and zy times down, for paint_pixels at zoom 1.
std::vector<Rgb> enlarged(const std::vector<Rgb>& rgb, std::int64_t rows, std::int64_t cols,
                          int zx, int zy) {
  std::vector<Rgb> out(static_cast<std::size_t>(rows * zy * cols * zx));
  std::size_t k = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    for (int dy = 0; dy < zy; ++dy)
      for (std::int64_t c = 0; c < cols; ++c)
        for (int dx = 0; dx < zx; ++dx) out[k++] = rgb[static_cast<std::size_t>(r * cols + c)];
  return out;
}

void frame_box(cairo_t* cr, double x, double y, double w, double h) {
  cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
  cairo_set_line_width(cr, 1.0);
  cairo_rectangle(cr, x - 0.5, y - 0.5, w + 1.0, h + 1.0);
  cairo_stroke(cr);
}

void draw(cairo_t* cr, const SpectrogramAttentionPicture& p, const Layout& L) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  if (!L.title.empty()) text_at(cr, kMargin, L.title_y, L.title, kTitleFont, true);
  cairo_set_source_rgb(cr, 0.33, 0.33, 0.33);
  text_at(cr, kMargin, L.note_y, L.note, kSubtitleFont);

  // The spectrogram and its mel axis.
  const std::vector<float> levels = spectrogram_levels(p);
  std::vector<Rgb> rgb(levels.size());
  for (std::size_t i = 0; i < levels.size(); ++i) rgb[i] = magma(levels[i]);
  paint_pixels(cr, p.mels * L.zy, p.frames * L.zx, enlarged(rgb, p.mels, p.frames, L.zx, L.zy),
               L.x0, L.spec_top, 1);
  frame_box(cr, L.x0, L.spec_top, L.spec_w, L.spec_h);
  cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
  text_at(cr, L.x0 - advance(cr, "mel bin", kTickFont), L.spec_top - 6.0, "mel bin", kTickFont);
  for (std::size_t i = 0; i < L.bin_ticks.size(); ++i) {
    const double ty = L.spec_top + L.spec_h * (1.0 - static_cast<double>(i) / 2.0);
    cairo_move_to(cr, L.x0 - kTickLength, ty);
    cairo_line_to(cr, L.x0, ty);
    cairo_stroke(cr);
    const double base = i == 0 ? ty : i == 2 ? ty + kTickFont * 0.8 : ty + kTickFont * 0.35;
    text_at(cr, L.x0 - kTickLength - 2.0 - advance(cr, L.bin_ticks[i], kTickFont), base,
            L.bin_ticks[i], kTickFont);
  }

  // One row per symbol.
  for (std::size_t i = 0; i < p.symbols.size(); ++i) {
    const std::vector<float> w =
        attention_per_frame(p.attention[i], p.frames, p.frames_per_annotation);
    const double top = colour_scale(p.attention[i]);
    std::vector<Rgb> row(w.size());
    for (std::size_t t = 0; t < w.size(); ++t) row[t] = viridis(top > 0.0 ? w[t] / top : 0.0);
    const double y = L.row_y(i);
    paint_pixels(cr, static_cast<std::int64_t>(kRowHeight), p.frames * L.zx,
                 enlarged(row, 1, p.frames, L.zx, static_cast<int>(kRowHeight)), L.x0, y, 1);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    const double base = y + kRowHeight / 2 + kSymbolFont * 0.35;
    text_at(cr, L.x0 - 6.0 - advance(cr, L.labels[i], kSymbolFont, true), base, L.labels[i],
            kSymbolFont, true);
    cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
    text_at(cr, L.weights_x, y + kRowHeight / 2 + kTickFont * 0.35, L.weights[i], kTickFont);
  }
  if (!p.symbols.empty())
    frame_box(cr, L.x0, L.rows_top, L.spec_w, L.row_y(p.symbols.size()) - kRowGap - L.rows_top);

  // The time axis, under the rows, with guides up through the spectrogram's bottom edge.
  cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
  cairo_set_line_width(cr, 1.0);
  cairo_move_to(cr, L.x0, L.axis_y + 0.5);
  cairo_line_to(cr, L.x0 + L.spec_w, L.axis_y + 0.5);
  cairo_stroke(cr);
  const double end = static_cast<double>(p.frames) * p.seconds_per_frame;
  // Frame t is centred on t * seconds_per_frame and drawn over [t, t + 1) zx px.
  auto x_of = [&](double s) { return L.x0 + (s / p.seconds_per_frame + 0.5) * L.zx; };
  for (int k = 0;; ++k) {
    const double s = k * L.tick_step;
    if (s > end - 0.5 * p.seconds_per_frame + 1e-9) break;
    const double x = std::round(x_of(s)) + 0.5;
    cairo_move_to(cr, x, L.axis_y);
    cairo_line_to(cr, x, L.axis_y + kTickLength);
    cairo_move_to(cr, x, L.spec_top + L.spec_h);
    cairo_line_to(cr, x, L.spec_top + L.spec_h + kTickLength);
    cairo_stroke(cr);
    const std::string t = seconds_text(s, L.tick_step);
    text_at(cr, x - advance(cr, t, kTickFont) / 2, L.axis_y + kTickLength + 2.0 + kTickFont, t,
            kTickFont);
  }
  const std::string unit = "seconds";
  text_at(cr, L.x0 + L.spec_w - advance(cr, unit, kTickFont),
          L.axis_y + kTickLength + 4.0 + 2 * kTickFont, unit, kTickFont);
  cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
  text_at(cr, L.bar_x, L.bar_top - 6.0, "\xCE\xB1 / largest", kTickFont);
  colour_bar(cr, L.bar_x, L.bar_top, L.bar_h, 1.0);
}

std::string description(const SpectrogramAttentionPicture& p) {
  std::string d = "symbols:";
  for (const auto& s : p.symbols) d += " " + s;
  return d;
}

}  // namespace

std::int64_t annotations_over(std::int64_t frames, std::int64_t frames_per_annotation) {
  HEED_CHECK(frames >= 0 && frames_per_annotation >= 1, "annotations_over: ", frames,
             " frames, ", frames_per_annotation, " per annotation");
  return (frames + frames_per_annotation - 1) / frames_per_annotation;
}

std::vector<float> attention_per_frame(const std::vector<float>& row, std::int64_t frames,
                                       std::int64_t frames_per_annotation) {
  const std::int64_t n = annotations_over(frames, frames_per_annotation);
  HEED_CHECK(row.size() == static_cast<std::size_t>(n), "spectrogram attention: ", row.size(),
             " weights for ", frames, " frames of ", frames_per_annotation,
             " per annotation, expected ", n);
  std::vector<float> out(static_cast<std::size_t>(frames));
  for (std::int64_t t = 0; t < frames; ++t)
    out[static_cast<std::size_t>(t)] = row[static_cast<std::size_t>(t / frames_per_annotation)];
  return out;
}

std::vector<float> spectrogram_levels(const SpectrogramAttentionPicture& p) {
  check_spectrogram_attention_picture(p);
  const float top = *std::max_element(p.log_mel.begin(), p.log_mel.end());
  const double bottom = static_cast<double>(top) - kDynamicRange;
  std::vector<float> out(p.log_mel.size());
  for (std::int64_t r = 0; r < p.mels; ++r) {
    const std::int64_t bin = p.mels - 1 - r;
    for (std::int64_t t = 0; t < p.frames; ++t)
      out[static_cast<std::size_t>(r * p.frames + t)] = static_cast<float>(std::clamp(
          (static_cast<double>(p.log_mel[static_cast<std::size_t>(t * p.mels + bin)]) - bottom) /
              kDynamicRange,
          0.0, 1.0));
  }
  return out;
}

void check_spectrogram_attention_picture(const SpectrogramAttentionPicture& p) {
  HEED_CHECK(p.frames > 0 && p.mels > 0 && p.mels <= 1024, "spectrogram attention: ", p.frames,
             " frames of ", p.mels, " mel bins");
  HEED_CHECK(p.log_mel.size() == static_cast<std::size_t>(p.frames * p.mels),
             "spectrogram attention: ", p.log_mel.size(), " values for ", p.frames,
             " frames of ", p.mels, " bins");
  for (std::size_t i = 0; i < p.log_mel.size(); ++i)
    HEED_CHECK(std::isfinite(p.log_mel[i]), "spectrogram attention: value ", i,
               " of the spectrogram is not finite");
  HEED_CHECK(std::isfinite(p.seconds_per_frame) && p.seconds_per_frame > 0.0,
             "spectrogram attention: ", p.seconds_per_frame, " seconds per frame");
  HEED_CHECK(p.frames_per_annotation >= 1, "spectrogram attention: ", p.frames_per_annotation,
             " frames per annotation, expected at least 1");
  HEED_CHECK(p.attention.size() == p.symbols.size(), "spectrogram attention: ",
             p.attention.size(), " attention rows for ", p.symbols.size(), " symbols");
  const auto n = static_cast<std::size_t>(annotations_over(p.frames, p.frames_per_annotation));
  for (std::size_t s = 0; s < p.symbols.size(); ++s) {
    HEED_CHECK(p.attention[s].size() == n, "spectrogram attention: symbol ", s, " ('",
               p.symbols[s], "') has ", p.attention[s].size(), " weights for ", n,
               " annotations (", p.frames, " frames, ", p.frames_per_annotation, " each)");
    for (std::size_t j = 0; j < n; ++j)
      HEED_CHECK(std::isfinite(p.attention[s][j]) && p.attention[s][j] >= 0.0f,
                 "spectrogram attention: symbol ", s, " ('", p.symbols[s], "'), annotation ", j,
                 ": weight ", p.attention[s][j], " is not a finite non-negative number");
  }
}

std::string spectrogram_attention_svg(const SpectrogramAttentionPicture& p) {
  const Layout L = layout_of(p);
  return render_svg(
      L.width, L.height, [&](cairo_t* cr) { draw(cr, p, L); }, p.title, description(p));
}

std::string spectrogram_attention_png(const SpectrogramAttentionPicture& p, double scale) {
  const Layout L = layout_of(p);
  return render_png(L.width, L.height, scale, [&](cairo_t* cr) { draw(cr, p, L); });
}

}  // namespace heed::viz
