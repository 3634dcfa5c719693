#include "heed/viz/glimpse_path_picture.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "heed/base/error.h"
#include "heed/kernels/glimpse.h"
#include "heed/viz/cairo_drawing.h"
#include "heed/viz/colormap.h"
#include "heed/viz/heatmap_style.h"

namespace heed::viz {
namespace {

using namespace heatmap_style;
using namespace cairo_drawing;

constexpr double kTarget = 480.0;  // px the image and its band aim at, at scale 1
constexpr double kVerdictFont = 12.5;
constexpr double kCaptionFont = 11.0;
constexpr double kNumberFont = 10.0;
constexpr double kPi = 3.14159265358979323846;
constexpr Rgb kBand{0x3a, 0x3a, 0x3a};  // outside the image, where the sensor reads zeros

struct Layout {
  std::string title, verdict, note, caption;
  bool right = false;
  double title_y = 0, verdict_y = 0, note_y = 0, caption_y = 0;
  std::int64_t pad = 0;  // image pixels of dark band on each side
  GlimpsePathLayout box;
};

std::int64_t largest_side(const GlimpsePathPicture& p) { return p.glimpse_size << (p.scales - 1); }

void check_location(const GlimpseLocation& l) {
  HEED_CHECK(std::isfinite(l.row) && std::isfinite(l.col) && std::abs(l.row) <= 1.0 &&
                 std::abs(l.col) <= 1.0,
             "glimpse picture: location (", l.row, ", ", l.col, ") is outside [-1, 1]^2");
}

void check(const GlimpsePathPicture& p) {
  HEED_CHECK(p.rows > 0 && p.cols > 0 && p.rows <= 4096 && p.cols <= 4096,
             "glimpse picture: an image of ", p.rows, " x ", p.cols, " pixels");
  HEED_CHECK(p.pixels.size() == static_cast<std::size_t>(p.rows * p.cols), "glimpse picture: ",
             p.pixels.size(), " pixels for an image of ", p.rows, " x ", p.cols);
  for (std::size_t i = 0; i < p.pixels.size(); ++i)
    HEED_CHECK(std::isfinite(p.pixels[i]), "glimpse picture: pixel ", i, " is not finite");
  HEED_CHECK(p.glimpse_size >= 1 && p.scales >= 1 && p.scales <= 12 &&
                 (p.glimpse_size << (p.scales - 1)) <= 4096,
             "glimpse picture: glimpse size ", p.glimpse_size, " and ", p.scales,
             " scales are no sensor");
  HEED_CHECK(!p.paths.empty() && !p.paths.front().empty(), "glimpse picture: no glimpse to draw");
  for (const auto& path : p.paths) {
    HEED_CHECK(path.size() == p.paths.front().size(), "glimpse picture: a path of ", path.size(),
               " steps beside one of ", p.paths.front().size());
    for (const GlimpseLocation& l : path) check_location(l);
  }
}

// "squares of 8, 16 and 32 px"
std::string squares_text(const GlimpsePathPicture& p) {
  std::string s = p.scales == 1 ? "one square of " : "squares of ";
  for (std::int64_t i = 0; i < p.scales; ++i) {
    if (i > 0) s += i + 1 == p.scales ? " and " : ", ";
    s += std::to_string(p.glimpse_size << i);
  }
  return s + " px";
}

Layout layout_of(const GlimpsePathPicture& p) {
  check(p);
  const Measure m;
  Layout L;
  L.title = drawable(p.title);
  if (!p.label.empty() || !p.prediction.empty()) {
    if (!p.label.empty()) L.verdict = "label " + drawable(p.label);
    if (!p.prediction.empty())
      L.verdict += (L.verdict.empty() ? "" : "  \xC2\xB7  ") + std::string("predicted ") +
                   drawable(p.prediction);
    if (!p.label.empty() && !p.prediction.empty()) {
      L.right = p.label == p.prediction;
      L.verdict += L.right ? "  \xE2\x9C\x93 right" : "  \xE2\x9C\x97 wrong";
    }
  }
  L.note = drawable(p.note);
  const std::size_t T = p.paths.front().size();
  L.caption = std::to_string(T) + (T == 1 ? " glimpse, " : " glimpses, ") + squares_text(p) +
              " (numbered 0 to " + std::to_string(T - 1) + "); dark: outside the image";
  if (p.paths.size() > 1)
    L.caption += "; " + std::to_string(p.paths.size() - 1) + " more paths faint";

  double y = kMargin, text_w = 0;
  auto line = [&](double& at, const std::string& text, double size, bool bold, double gap) {
    if (text.empty()) return;
    at = y += size + 2.0;
    text_w = std::max(text_w, advance(m.get(), text, size, bold));
    y += gap;
  };
  line(L.title_y, L.title, kTitleFont, true, 4.0);
  line(L.verdict_y, L.verdict, kVerdictFont, true, 3.0);
  line(L.note_y, L.note, kSubtitleFont, false, 3.0);
  if (y > kMargin) y += 8.0;

  const std::int64_t largest = largest_side(p);
  // A square of side S centred on the image's edge starts S / 2 pixels outside it and ends
  // (S + 1) / 2 outside (kernels::glimpse_origin's rounding): the band holds both.
  L.pad = (largest + 1) / 2;
  const double span = static_cast<double>(std::max(p.rows, p.cols) + 2 * L.pad);
  L.box.zoom = static_cast<int>(std::clamp(std::floor(kTarget / span), 1.0, 32.0));
  const double z = L.box.zoom;
  L.box.image_x = kMargin + static_cast<double>(L.pad) * z;
  L.box.image_y = y + static_cast<double>(L.pad) * z;
  const double area_w = static_cast<double>(p.cols + 2 * L.pad) * z;
  const double area_h = static_cast<double>(p.rows + 2 * L.pad) * z;
  L.caption_y = y + area_h + 8.0 + kCaptionFont;
  text_w = std::max(text_w, advance(m.get(), L.caption, kCaptionFont));
  L.box.width = std::ceil(std::max(area_w, text_w) + 2 * kMargin);
  L.box.height = std::ceil(L.caption_y + kMargin * 0.75);
  return L;
}

// Step t of T: viridis from blue-green (first) to yellow (last), light enough to see on the
// dark background of most images.
Rgb step_colour(std::size_t t, std::size_t T) {
  return viridis(0.3 + 0.7 * (T > 1 ? static_cast<double>(t) / static_cast<double>(T - 1) : 1.0));
}

struct Point {
  double x = 0, y = 0;
};

// The location's centre in the picture: c = (l + 1) / 2 * extent pixels (docs/MODELS.md).
Point centre(const GlimpsePathPicture& p, const Layout& L, const GlimpseLocation& l) {
  const double z = L.box.zoom;
  return {L.box.image_x + (l.col + 1.0) / 2.0 * static_cast<double>(p.cols) * z,
          L.box.image_y + (l.row + 1.0) / 2.0 * static_cast<double>(p.rows) * z};
}

void stroke_with_halo(cairo_t* cr, Rgb colour, double width, double alpha = 1.0) {
  cairo_set_source_rgba(cr, 0, 0, 0, 0.55 * alpha);
  cairo_set_line_width(cr, width + 1.6);
  cairo_stroke_preserve(cr);
  cairo_set_source_rgba(cr, colour.r / 255.0, colour.g / 255.0, colour.b / 255.0, alpha);
  cairo_set_line_width(cr, width);
  cairo_stroke(cr);
}

void draw(cairo_t* cr, const GlimpsePathPicture& p, const Layout& L) {
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  if (!L.title.empty()) text_at(cr, kMargin, L.title_y, L.title, kTitleFont, true);
  if (!L.verdict.empty()) {
    if (p.label.empty() || p.prediction.empty()) cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    else if (L.right) cairo_set_source_rgb(cr, 0.10, 0.50, 0.22);
    else cairo_set_source_rgb(cr, 0.70, 0.15, 0.12);
    text_at(cr, kMargin, L.verdict_y, L.verdict, kVerdictFont, true);
  }
  cairo_set_source_rgb(cr, 0.33, 0.33, 0.33);
  if (!L.note.empty()) text_at(cr, kMargin, L.note_y, L.note, kSubtitleFont);
  text_at(cr, kMargin, L.caption_y, L.caption, kCaptionFont);

  // The band the sensor reads as zeros, the image, its edge.
  const double z = L.box.zoom, x0 = L.box.image_x, y0 = L.box.image_y;
  const double band = static_cast<double>(L.pad) * z;
  const double iw = static_cast<double>(p.cols) * z, ih = static_cast<double>(p.rows) * z;
  set_rgb(cr, kBand);
  cairo_rectangle(cr, x0 - band, y0 - band, iw + 2 * band, ih + 2 * band);
  cairo_fill(cr);
  std::vector<Rgb> gray(p.pixels.size());
  for (std::size_t i = 0; i < gray.size(); ++i) {
    const auto v = static_cast<std::uint8_t>(std::lround(std::clamp(p.pixels[i], 0.0f, 1.0f) * 255.0f));
    gray[i] = Rgb{v, v, v};
  }
  paint_pixels(cr, p.rows, p.cols, gray, x0, y0, L.box.zoom);
  cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
  cairo_set_line_width(cr, 1.0);
  cairo_rectangle(cr, x0 - 0.5, y0 - 0.5, iw + 1.0, ih + 1.0);
  cairo_stroke(cr);

  // Everything the paths draw stays on the band and the image (and the strokes on its edge).
  cairo_save(cr);
  cairo_rectangle(cr, x0 - band - 3.0, y0 - band - 3.0, iw + 2 * band + 6.0, ih + 2 * band + 6.0);
  cairo_clip(cr);
  const std::size_t T = p.paths.front().size();
  // The other paths, faint: lines and dots.
  for (std::size_t k = p.paths.size(); k-- > 1;) {
    const auto& path = p.paths[k];
    for (std::size_t t = 0; t < T; ++t) {
      const Point c = centre(p, L, path[t]);
      if (t == 0) cairo_move_to(cr, c.x, c.y);
      else cairo_line_to(cr, c.x, c.y);
    }
    cairo_set_source_rgba(cr, 1, 1, 1, 0.3);
    cairo_set_line_width(cr, 1.0);
    cairo_stroke(cr);
    for (std::size_t t = 0; t < T; ++t) {
      const Point c = centre(p, L, path[t]);
      const Rgb col = step_colour(t, T);
      cairo_arc(cr, c.x, c.y, 2.5, 0, 2 * kPi);
      cairo_set_source_rgba(cr, col.r / 255.0, col.g / 255.0, col.b / 255.0, 0.55);
      cairo_fill(cr);
    }
  }
  // The first path: each step's squares (finest thickest), later steps on top.
  const auto& path = p.paths.front();
  for (std::size_t t = 0; t < T; ++t) {
    const std::vector<GlimpseSquare> squares =
        glimpse_squares(path[t], p.rows, p.cols, p.glimpse_size, p.scales);
    for (std::size_t i = squares.size(); i-- > 0;) {
      const GlimpseSquare& s = squares[i];
      cairo_rectangle(cr, x0 + static_cast<double>(s.col) * z, y0 + static_cast<double>(s.row) * z,
                      static_cast<double>(s.side) * z, static_cast<double>(s.side) * z);
      stroke_with_halo(cr, step_colour(t, T), i == 0 ? 2.0 : 1.3);
    }
  }
  // Lines joining the locations in order, each coloured as the step it leads to.
  for (std::size_t t = 1; t < T; ++t) {
    const Point a = centre(p, L, path[t - 1]), b = centre(p, L, path[t]);
    cairo_move_to(cr, a.x, a.y);
    cairo_line_to(cr, b.x, b.y);
    stroke_with_halo(cr, step_colour(t, T), 1.5);
  }
  // The numbers, in discs of the step's colour.
  for (std::size_t t = 0; t < T; ++t) {
    const Point c = centre(p, L, path[t]);
    const Rgb col = step_colour(t, T);
    const std::string n = std::to_string(t);
    const double w = advance(cr, n, kNumberFont, true);
    const double r = std::max(7.5, w / 2 + 3.0);
    cairo_arc(cr, c.x, c.y, r, 0, 2 * kPi);
    set_rgb(cr, col);
    cairo_fill_preserve(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 0.8);
    cairo_stroke(cr);
    if (luminance(col) > 0.3) cairo_set_source_rgb(cr, 0, 0, 0);
    else cairo_set_source_rgb(cr, 1, 1, 1);
    text_at(cr, c.x - w / 2, c.y + kNumberFont * 0.36, n, kNumberFont, true);
  }
  cairo_restore(cr);
}

std::string location_text(const GlimpseLocation& l) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "(%.3f, %.3f)", l.row, l.col);
  return buf;
}

std::string description(const GlimpsePathPicture& p) {
  std::string d;
  if (!p.label.empty()) d.append("label: ").append(p.label).append("\n");
  if (!p.prediction.empty()) d.append("predicted: ").append(p.prediction).append("\n");
  d += "glimpse locations (row, col):";
  for (const GlimpseLocation& l : p.paths.front()) d.append(" ").append(location_text(l));
  return d;
}

}  // namespace

std::vector<GlimpseSquare> glimpse_squares(const GlimpseLocation& l, std::int64_t rows,
                                           std::int64_t cols, std::int64_t glimpse_size,
                                           std::int64_t scales) {
  check_location(l);
  std::vector<GlimpseSquare> squares;
  for (std::int64_t i = 0; i < scales; ++i) {
    const std::int64_t side = glimpse_size << i;
    squares.push_back({kernels::glimpse_origin(l.row, rows, side),
                       kernels::glimpse_origin(l.col, cols, side), side});
  }
  return squares;
}

GlimpsePathLayout glimpse_path_layout(const GlimpsePathPicture& picture) {
  return layout_of(picture).box;
}

std::string glimpse_path_svg(const GlimpsePathPicture& picture) {
  const Layout L = layout_of(picture);
  return render_svg(
      L.box.width, L.box.height, [&](cairo_t* cr) { draw(cr, picture, L); }, picture.title,
      description(picture));
}

std::string glimpse_path_png(const GlimpsePathPicture& picture, double scale) {
  const Layout L = layout_of(picture);
  return render_png(L.box.width, L.box.height, scale,
                    [&](cairo_t* cr) { draw(cr, picture, L); });
}

}  // namespace heed::viz
