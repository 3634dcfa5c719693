#include "heed/viz/grid_attention_picture.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "heed/base/error.h"
#include "heed/viz/cairo_drawing.h"
#include "heed/viz/heatmap_style.h"
#include "heed/viz/svg_text.h"

namespace heed::viz {
namespace {

using namespace heatmap_style;
using namespace cairo_drawing;

constexpr double kPanelTarget = 180.0;  // px a panel's longer side aims at
constexpr double kMaxRowWidth = 1100.0; // panels wrap to a new row past this
constexpr double kGap = 14.0;
constexpr double kWordFont = 12.0;
constexpr double kOverlay = 0.55;  // the colour's share of a blended pixel

struct Layout {
  std::string title, note;
  std::vector<std::string> captions, weights;  // per panel (0: the image alone)
  double title_y = 0, note_y = 0;
  int zoom = 1;
  double panel_w = 0, panel_h = 0, cell_h = 0;  // cell: the panel and its two text lines
  double top = 0;                              // the first row of panels
  std::size_t per_row = 1;
  double bar_x = 0;
  double width = 0, height = 0;

  double panel_x(std::size_t i) const {
    return kMargin + static_cast<double>(i % per_row) * (panel_w + kGap);
  }
  double panel_y(std::size_t i) const {
    return top + static_cast<double>(i / per_row) * (cell_h + kGap);
  }
};

float largest(const std::vector<float>& v) { return *std::max_element(v.begin(), v.end()); }

// The weight drawn in full yellow: the word's largest, or twice the even share 2 sum / L when
// the largest is below that, so that attention spread evenly over the L cells shows as an
// even middle colour rather than bright everywhere.
double colour_scale(const std::vector<float>& v) {
  double sum = 0;
  for (float x : v) sum += x;
  return std::max(static_cast<double>(largest(v)), 2.0 * sum / static_cast<double>(v.size()));
}

std::string weight_text(const std::string& symbol, double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, " %.3f", v);
  return "largest " + symbol + buf;
}

Layout layout_of(const GridAttentionPicture& p) {
  check_grid_attention_picture(p);
  const Measure m;
  Layout L;
  L.title = drawable(label_text(p.title, kMaxTitle));
  L.note = !p.note.empty()
               ? p.note
               : "each word's attention over the " + std::to_string(p.grid_rows) + " \xC3\x97 " +
                     std::to_string(p.grid_cols) +
                     " grid, upsampled bilinearly to the pixels; full colour at its largest "
                     "weight (at least twice the even share)";
  L.captions.push_back("image");
  L.weights.push_back(std::to_string(p.rows) + " \xC3\x97 " + std::to_string(p.cols) + " px");
  for (std::size_t w = 0; w < p.words.size(); ++w) {
    L.captions.push_back(drawable(label_text(p.words[w], kMaxLabel)));
    L.weights.push_back(weight_text(p.weight_symbol, largest(p.attention[w])));
  }
  double y = kMargin, text_w = 0;
  if (!L.title.empty()) {
    L.title_y = y += kTitleFont;
    text_w = std::max(text_w, advance(m.get(), L.title, kTitleFont, true));
    y += 6.0;
  }
  L.note_y = y += kSubtitleFont + 2.0;
  text_w = std::max(text_w, advance(m.get(), L.note, kSubtitleFont));
  y += 14.0;
  L.top = y;

  L.zoom = static_cast<int>(
      std::clamp(std::floor(kPanelTarget / static_cast<double>(std::max(p.rows, p.cols))), 1.0, 16.0));
  L.panel_h = static_cast<double>(p.rows * L.zoom);
  // A panel is as wide as its image or its labels, whichever is wider; the image centred.
  L.panel_w = static_cast<double>(p.cols * L.zoom);
  for (std::size_t i = 0; i < L.captions.size(); ++i) {
    L.panel_w = std::max(L.panel_w, advance(m.get(), L.captions[i], kWordFont, true));
    L.panel_w = std::max(L.panel_w, advance(m.get(), L.weights[i], kTickFont));
  }
  L.cell_h = L.panel_h + 8.0 + kWordFont + 4.0 + kTickFont;
  L.per_row = static_cast<std::size_t>(
      std::max(1.0, std::floor((kMaxRowWidth - 2 * kMargin + kGap) / (L.panel_w + kGap))));
  L.per_row = std::min(L.per_row, L.captions.size());
  const std::size_t rows_of_panels = (L.captions.size() + L.per_row - 1) / L.per_row;
  const double panels_w = static_cast<double>(L.per_row) * (L.panel_w + kGap) - kGap;
  L.bar_x = kMargin + panels_w + 22.0;
  const double right = L.bar_x + kBarWidth + colour_bar_labels_width(m.get(), 1.0);
  L.width = std::ceil(std::max(text_w + 2 * kMargin, right + kMargin));
  L.height = std::ceil(L.top + static_cast<double>(rows_of_panels) * (L.cell_h + kGap) - kGap +
                       kMargin);
  return L;
}

void draw(cairo_t* cr, const GridAttentionPicture& p, const Layout& L) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  if (!L.title.empty()) text_at(cr, kMargin, L.title_y, L.title, kTitleFont, true);
  cairo_set_source_rgb(cr, 0.33, 0.33, 0.33);
  text_at(cr, kMargin, L.note_y, L.note, kSubtitleFont);

  const double image_w = static_cast<double>(p.cols * L.zoom);
  std::vector<Rgb> gray(p.pixels.size());
  for (std::size_t i = 0; i < gray.size(); ++i) {
    const auto v = static_cast<std::uint8_t>(std::lround(std::clamp(p.pixels[i], 0.0f, 1.0f) * 255.0f));
    gray[i] = Rgb{v, v, v};
  }
  for (std::size_t i = 0; i < L.captions.size(); ++i) {
    const double x = L.panel_x(i), y = L.panel_y(i);
    const double ix = x + (L.panel_w - image_w) / 2;
    paint_pixels(cr, p.rows, p.cols, i == 0 ? gray : grid_attention_overlay(p, i - 1), ix, y, L.zoom);
    cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
    cairo_set_line_width(cr, 1.0);
    cairo_rectangle(cr, ix - 0.5, y - 0.5, image_w + 1.0, L.panel_h + 1.0);
    cairo_stroke(cr);
    const double cx = x + L.panel_w / 2;
    const double wy = y + L.panel_h + 8.0 + kWordFont;
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text_at(cr, cx - advance(cr, L.captions[i], kWordFont, true) / 2, wy, L.captions[i], kWordFont, true);
    cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
    text_at(cr, cx - advance(cr, L.weights[i], kTickFont) / 2, wy + 4.0 + kTickFont, L.weights[i],
            kTickFont);
  }
  colour_bar(cr, L.bar_x, L.top, L.panel_h, 1.0);
}

std::string description(const GridAttentionPicture& p) {
  std::string d = "words:";
  for (const auto& w : p.words) d += " " + w;
  return d;
}

}  // namespace

void check_grid_attention_picture(const GridAttentionPicture& p) {
  HEED_CHECK(p.rows > 0 && p.cols > 0 && p.rows <= 4096 && p.cols <= 4096,
             "grid attention picture: an image of ", p.rows, " x ", p.cols, " pixels");
  HEED_CHECK(p.pixels.size() == static_cast<std::size_t>(p.rows * p.cols),
             "grid attention picture: ", p.pixels.size(), " pixels for an image of ", p.rows,
             " x ", p.cols);
  for (std::size_t i = 0; i < p.pixels.size(); ++i)
    HEED_CHECK(std::isfinite(p.pixels[i]), "grid attention picture: pixel ", i, " is not finite");
  HEED_CHECK(p.grid_rows > 0 && p.grid_cols > 0, "grid attention picture: a grid of ",
             p.grid_rows, " x ", p.grid_cols);
  HEED_CHECK(p.attention.size() == p.words.size(), "grid attention picture: ",
             p.attention.size(), " attention rows for ", p.words.size(), " words");
  const auto cells = static_cast<std::size_t>(p.grid_rows * p.grid_cols);
  for (std::size_t w = 0; w < p.words.size(); ++w) {
    HEED_CHECK(p.attention[w].size() == cells, "grid attention picture: word ", w, " ('",
               p.words[w], "') has ", p.attention[w].size(), " weights for a grid of ",
               p.grid_rows, " x ", p.grid_cols);
    for (std::size_t j = 0; j < cells; ++j)
      HEED_CHECK(std::isfinite(p.attention[w][j]) && p.attention[w][j] >= 0.0f,
                 "grid attention picture: word ", w, " ('", p.words[w], "'), cell ", j,
                 ": weight ", p.attention[w][j], " is not a finite non-negative number");
  }
}

std::vector<float> upsample_grid(const std::vector<float>& grid, std::int64_t grid_rows,
                                 std::int64_t grid_cols, std::int64_t rows, std::int64_t cols) {
  HEED_CHECK(grid_rows > 0 && grid_cols > 0 && rows > 0 && cols > 0 &&
                 grid.size() == static_cast<std::size_t>(grid_rows * grid_cols),
             "upsample: ", grid.size(), " values for a grid of ", grid_rows, " x ", grid_cols,
             " to ", rows, " x ", cols, " pixels");
  // Pixel centre r + 1/2 sits at (r + 1/2) grid_rows / rows in grid units, the centre of
  // cell a at a + 1/2.
  struct Tap {
    std::int64_t lo, hi;
    double f;
  };
  auto taps = [](std::int64_t n, std::int64_t cells) {
    std::vector<Tap> out(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
      const double u = std::clamp((static_cast<double>(i) + 0.5) * static_cast<double>(cells) /
                                          static_cast<double>(n) - 0.5,
                                  0.0, static_cast<double>(cells - 1));
      const auto lo = static_cast<std::int64_t>(std::floor(u));
      out[static_cast<std::size_t>(i)] = {lo, std::min(lo + 1, cells - 1), u - static_cast<double>(lo)};
    }
    return out;
  };
  const std::vector<Tap> tr = taps(rows, grid_rows), tc = taps(cols, grid_cols);
  auto at = [&](std::int64_t a, std::int64_t b) {
    return static_cast<double>(grid[static_cast<std::size_t>(a * grid_cols + b)]);
  };
  std::vector<float> out(static_cast<std::size_t>(rows * cols));
  for (std::int64_t r = 0; r < rows; ++r) {
    const Tap& a = tr[static_cast<std::size_t>(r)];
    for (std::int64_t c = 0; c < cols; ++c) {
      const Tap& b = tc[static_cast<std::size_t>(c)];
      const double top = at(a.lo, b.lo) * (1 - b.f) + at(a.lo, b.hi) * b.f;
      const double bottom = at(a.hi, b.lo) * (1 - b.f) + at(a.hi, b.hi) * b.f;
      out[static_cast<std::size_t>(r * cols + c)] = static_cast<float>(top * (1 - a.f) + bottom * a.f);
    }
  }
  return out;
}

std::vector<Rgb> grid_attention_overlay(const GridAttentionPicture& p, std::size_t word) {
  check_grid_attention_picture(p);
  HEED_CHECK(word < p.words.size(), "grid attention picture: word ", word, " of ", p.words.size());
  const std::vector<float> a = upsample_grid(p.attention[word], p.grid_rows, p.grid_cols, p.rows, p.cols);
  const double top = colour_scale(p.attention[word]);
  std::vector<Rgb> out(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Rgb c = viridis(top > 0.0 ? a[i] / top : 0.0);
    const double g = 255.0 * std::clamp(static_cast<double>(p.pixels[i]), 0.0, 1.0);
    auto mix = [&](std::uint8_t v) {
      return static_cast<std::uint8_t>(std::lround((1.0 - kOverlay) * g + kOverlay * v));
    };
    out[i] = Rgb{mix(c.r), mix(c.g), mix(c.b)};
  }
  return out;
}

std::string grid_attention_svg(const GridAttentionPicture& p) {
  const Layout L = layout_of(p);
  return render_svg(
      L.width, L.height, [&](cairo_t* cr) { draw(cr, p, L); }, p.title, description(p));
}

std::string grid_attention_png(const GridAttentionPicture& p, double scale) {
  const Layout L = layout_of(p);
  return render_png(L.width, L.height, scale, [&](cairo_t* cr) { draw(cr, p, L); });
}

}  // namespace heed::viz
