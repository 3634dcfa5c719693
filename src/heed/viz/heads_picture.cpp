#include "heed/viz/heads_picture.h"

#include <algorithm>
#include <cmath>

#include "heed/base/error.h"
#include "heed/viz/cairo_drawing.h"
#include "heed/viz/colormap.h"
#include "heed/viz/heatmap_style.h"
#include "heed/viz/svg_text.h"

namespace heed::viz {
namespace {

using namespace heatmap_style;
using namespace cairo_drawing;

constexpr double kPi = 3.14159265358979323846;
constexpr double kGap = 18.0;  // between maps

struct Layout {
  std::string title, subtitle, axes;
  std::vector<std::string> cols, rows;
  double cell = 8.0, font = 9.0;
  bool labels = true;  // tokens drawn (cells of at least 9 px)
  double top = 0, title_y = 0, subtitle_y = 0, axes_y = 0;
  std::int64_t maps = 0;  // per layer: the heads, and their average where there are several
  double col_label_h = 0, row_label_w = 0, map_w = 0, map_h = 0, caption_h = 0;
  double slot_w = 0;  // a map and the space beside it: at least its caption's width
  double width = 0, height = 0;
};

Layout layout_of(const HeadsPicture& p) {
  check_heads_picture(p);
  const Measure m;
  Layout L;
  L.title = drawable(label_text(p.title, kMaxTitle));
  L.subtitle = drawable(label_text(p.subtitle, kMaxTitle));
  L.axes = drawable(label_text(p.axes, kMaxTitle));
  L.maps = p.heads > 1 ? p.heads + 1 : 1;
  const double longest = static_cast<double>(std::max(p.source.size(), p.output.size()));
  // Each map about 160 px on its longer side, cells between 3 and 18 px.
  L.cell = std::clamp(std::floor(160.0 / longest), 3.0, 18.0);
  L.labels = L.cell >= 9.0;
  L.font = std::clamp(L.cell * 0.7, 7.0, 11.0);
  double max_col = 0, max_row = 0;
  for (const auto& t : p.source) {
    L.cols.push_back(drawable(label_text(t, kMaxLabel)));
    max_col = std::max(max_col, advance(m.get(), L.cols.back(), L.font));
  }
  for (const auto& t : p.output) {
    L.rows.push_back(drawable(label_text(t, kMaxLabel)));
    max_row = std::max(max_row, advance(m.get(), L.rows.back(), L.font));
  }
  L.col_label_h = L.labels ? max_col + 8.0 : 0.0;
  L.row_label_w = L.labels ? max_row + 6.0 : 0.0;
  L.map_w = L.cell * static_cast<double>(p.source.size());
  L.map_h = L.cell * static_cast<double>(p.output.size());
  L.caption_h = kTickFont + 6.0;
  const std::string widest = "layer " + std::to_string(p.layers.size()) + " \xC2\xB7 average";
  L.slot_w = std::max(L.map_w, advance(m.get(), widest, kTickFont, true)) + kGap;
  double y = kMargin, text_w = 0;
  L.title_y = y += kTitleFont;
  text_w = advance(m.get(), L.title, kTitleFont, true);
  y += 6.0;
  L.subtitle_y = y += kSubtitleFont + 2.0;
  text_w = std::max(text_w, advance(m.get(), L.subtitle, kSubtitleFont));
  if (!L.axes.empty()) {
    L.axes_y = y += kTickFont + 6.0;
    text_w = std::max(text_w, advance(m.get(), L.axes, kTickFont));
  }
  L.top = y + 14.0;
  const auto H = static_cast<double>(p.heads), Ly = static_cast<double>(p.layers.size());
  (void)H;
  const double grid_w = L.row_label_w + static_cast<double>(L.maps) * L.slot_w - kGap;
  const double grid_h = Ly * (L.caption_h + L.col_label_h + L.map_h) + (Ly - 1) * kGap;
  const double bar_w = 18.0 + kBarWidth + colour_bar_labels_width(m.get(), 1.0);
  L.width = std::ceil(std::max(text_w, grid_w + bar_w) + 2 * kMargin);
  L.height = std::ceil(L.top + std::max(grid_h, L.caption_h + L.col_label_h + kBarMinHeight +
                                                     kTickFont) + kMargin);
  return L;
}

void draw(cairo_t* cr, const Layout& L, const HeadsPicture& p) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  text_at(cr, kMargin, L.title_y, L.title, kTitleFont, true);
  cairo_set_source_rgb(cr, 0.33, 0.33, 0.33);
  text_at(cr, kMargin, L.subtitle_y, L.subtitle, kSubtitleFont);
  if (!L.axes.empty()) text_at(cr, kMargin, L.axes_y, L.axes, kTickFont);
  const std::size_t rows = p.output.size(), cols = p.source.size();
  // Each layer: a caption over each map, then the column tokens, then the maps: the heads,
  // then their average.
  const double x0 = kMargin + L.row_label_w, f = L.font;
  const double y0 = L.top + L.caption_h + L.col_label_h;  // the first layer's maps
  for (std::size_t l = 0; l < p.layers.size(); ++l) {
    const double my =
        y0 + static_cast<double>(l) * (L.caption_h + L.col_label_h + L.map_h + kGap);
    const double caption_y = my - L.caption_h - L.col_label_h + kTickFont;
    const std::vector<float> average = heads_average(p, l);
    for (std::int64_t h = 0; h < L.maps; ++h) {
      const bool is_average = h == p.heads;
      const double mx = x0 + static_cast<double>(h) * L.slot_w;
      cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
      text_at(cr, mx, caption_y,
              "layer " + std::to_string(l + 1) + " \xC2\xB7 " +
                  (is_average ? std::string("average") : "head " + std::to_string(h + 1)),
              kTickFont, true);
      const float* v = is_average ? average.data()
                                  : p.layers[l].data() + static_cast<std::size_t>(h) * rows * cols;
      for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
          set_rgb(cr, viridis(v[i * cols + j]));
          cairo_rectangle(cr, mx + static_cast<double>(j) * L.cell,
                          my + static_cast<double>(i) * L.cell, L.cell, L.cell);
          cairo_fill(cr);
        }
      if (!L.labels) continue;
      cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
      if (h == 0)  // the output tokens left of each layer's first map
        for (std::size_t i = 0; i < rows; ++i)
          text_at(cr, mx - 4.0 - advance(cr, L.rows[i], f),
                  my + (static_cast<double>(i) + 0.5) * L.cell + f * 0.36, L.rows[i], f);
      // the column tokens, upright, above each map
      for (std::size_t j = 0; j < cols; ++j) {
        cairo_save(cr);
        cairo_translate(cr, mx + (static_cast<double>(j) + 0.5) * L.cell + f * 0.36, my - 4.0);
        cairo_rotate(cr, -kPi / 2);
        text_at(cr, 0, 0, L.cols[j], f);
        cairo_restore(cr);
      }
    }
  }
  const double bar_x = x0 + static_cast<double>(L.maps) * L.slot_w - kGap + 18.0;
  colour_bar(cr, bar_x, y0, kBarMinHeight, 1.0);
}

std::string joined(const std::vector<std::string>& tokens) {
  std::string s;
  for (const auto& t : tokens) (s += s.empty() ? "" : " ") += t;
  return s;
}

}  // namespace

void check_heads_picture(const HeadsPicture& p) {
  HEED_CHECK(!p.source.empty() && !p.output.empty(), "heads picture: needs source and output "
             "tokens, got ", p.source.size(), " and ", p.output.size());
  HEED_CHECK(p.heads >= 1 && !p.layers.empty(), "heads picture: ", p.layers.size(),
             " layers of ", p.heads, " heads; needs at least one of each");
  const std::size_t want = static_cast<std::size_t>(p.heads) * p.output.size() * p.source.size();
  for (std::size_t l = 0; l < p.layers.size(); ++l) {
    HEED_CHECK(p.layers[l].size() == want, "heads picture: layer ", l + 1, " has ",
               p.layers[l].size(), " weights, expected ", p.heads, " heads x ", p.output.size(),
               " output x ", p.source.size(), " source tokens");
    for (float w : p.layers[l])
      HEED_CHECK(std::isfinite(w), "heads picture: layer ", l + 1, " has a weight that is not "
                 "finite");
  }
}

std::vector<float> heads_average(const HeadsPicture& p, std::size_t layer) {
  HEED_CHECK(layer < p.layers.size(), "heads picture: layer ", layer + 1, " of ",
             p.layers.size());
  const std::size_t size = p.output.size() * p.source.size();
  HEED_CHECK(p.heads >= 1 && p.layers[layer].size() == static_cast<std::size_t>(p.heads) * size,
             "heads picture: layer ", layer + 1, " has ", p.layers[layer].size(),
             " weights, expected ", p.heads, " heads x ", size);
  std::vector<float> sum(size, 0.0f);
  for (std::int64_t h = 0; h < p.heads; ++h)
    for (std::size_t k = 0; k < size; ++k)
      sum[k] += p.layers[layer][static_cast<std::size_t>(h) * size + k];
  for (float& v : sum) v /= static_cast<float>(p.heads);
  return sum;
}

std::string heads_svg(const HeadsPicture& p) {
  const Layout L = layout_of(p);
  return render_svg(L.width, L.height, [&](cairo_t* cr) { draw(cr, L, p); }, p.title,
                    "source: " + joined(p.source) + "\noutput: " + joined(p.output), "heads-");
}

std::string heads_png(const HeadsPicture& p, double scale) {
  const Layout L = layout_of(p);
  return render_png(L.width, L.height, scale, [&](cairo_t* cr) { draw(cr, L, p); });
}

}  // namespace heed::viz
