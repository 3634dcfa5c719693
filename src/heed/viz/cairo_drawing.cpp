#include "heed/viz/cairo_drawing.h"

#include <cairo-svg.h>
#include <pango/pangocairo.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/viz/heatmap_style.h"
#include "heed/viz/svg_text.h"

namespace heed::viz::cairo_drawing {
namespace {

constexpr char kFont[] = "DejaVu Sans";

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length) {
  static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
  return CAIRO_STATUS_SUCCESS;
}

void check_status(cairo_status_t status, const char* what) {
  HEED_CHECK(status == CAIRO_STATUS_SUCCESS, "picture: cairo could not draw the ", what, " (",
             cairo_status_to_string(status), ")");
}

}  // namespace

std::string drawable(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t n = decode_utf8_escaped_at(text, i, cp);
    if (cp < 0x20 || cp == 0x7F || (cp >= 0xDC80 && cp <= 0xDCFF)) cp = 0xFFFD;
    append_utf8(out, cp);
    i += n;
  }
  return out;
}

namespace {

struct LayoutDeleter {
  void operator()(PangoLayout* l) const { g_object_unref(l); }
};
using Layout = std::unique_ptr<PangoLayout, LayoutDeleter>;

// text laid out for cr (its transformation included) in the pictures' font.
Layout layout_of(cairo_t* cr, const std::string& text, double size, bool bold) {
  Layout l(pango_cairo_create_layout(cr));
  cairo_font_options_t* fo = cairo_font_options_create();
  cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
  cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
  pango_cairo_context_set_font_options(pango_layout_get_context(l.get()), fo);
  cairo_font_options_destroy(fo);
  pango_layout_context_changed(l.get());
  PangoFontDescription* d = pango_font_description_new();
  pango_font_description_set_family(d, kFont);
  pango_font_description_set_weight(d, bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL);
  pango_font_description_set_absolute_size(d, size * PANGO_SCALE);
  pango_layout_set_font_description(l.get(), d);
  pango_font_description_free(d);
  const std::string safe = drawable(text);
  pango_layout_set_text(l.get(), safe.data(), static_cast<int>(safe.size()));
  return l;
}

}  // namespace

std::size_t missing_glyphs(const std::string& text) {
  const Measure m;
  return static_cast<std::size_t>(
      pango_layout_get_unknown_glyphs_count(layout_of(m.get(), text, 12.0, false).get()));
}

double advance(cairo_t* cr, const std::string& text, double size, bool bold) {
  PangoRectangle logical;
  pango_layout_get_extents(layout_of(cr, text, size, bold).get(), nullptr, &logical);
  return static_cast<double>(logical.width) / PANGO_SCALE;
}

void text_at(cairo_t* cr, double x, double y, const std::string& text, double size, bool bold) {
  const Layout l = layout_of(cr, text, size, bold);
  cairo_move_to(cr, x, y - static_cast<double>(pango_layout_get_baseline(l.get())) / PANGO_SCALE);
  pango_cairo_show_layout(cr, l.get());
}

void set_rgb(cairo_t* cr, Rgb c) { cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0); }

void colour_bar(cairo_t* cr, double x, double y, double height, double vmax) {
  using namespace heatmap_style;
  cairo_pattern_t* gradient = cairo_pattern_create_linear(0, y + height, 0, y);
  for (int k = 0; k <= 10; ++k) {
    const Rgb c = viridis(k / 10.0);
    cairo_pattern_add_color_stop_rgb(gradient, k / 10.0, c.r / 255.0, c.g / 255.0, c.b / 255.0);
  }
  cairo_rectangle(cr, x, y, kBarWidth, height);
  cairo_set_source(cr, gradient);
  cairo_fill_preserve(cr);
  cairo_pattern_destroy(gradient);
  cairo_set_source_rgb(cr, 0.33, 0.33, 0.33);
  cairo_set_line_width(cr, 0.5);
  cairo_stroke(cr);
  for (int k = 0; k <= 4; ++k) {
    const double ty = y + height * (1.0 - k / 4.0);
    cairo_move_to(cr, x + kBarWidth, ty);
    cairo_rel_line_to(cr, 4.0, 0);
    cairo_stroke(cr);
    text_at(cr, x + kBarWidth + 6.0, ty + kTickFont * 0.36, tick_value(vmax * k / 4.0), kTickFont);
  }
}

double colour_bar_labels_width(cairo_t* cr, double vmax) {
  using namespace heatmap_style;
  double w = 0;
  for (int k = 0; k <= 4; ++k) w = std::max(w, advance(cr, tick_value(vmax * k / 4.0), kTickFont));
  return 9.0 + w;
}

Measure::Measure()
    : surface_(cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1)), cr_(cairo_create(surface_.get())) {}

Surface rgb_surface(std::int64_t rows, std::int64_t cols, const std::vector<Rgb>& rgb) {
  HEED_CHECK(rows > 0 && cols > 0 && rows <= 32767 && cols <= 32767 &&
                 rgb.size() == static_cast<std::size_t>(rows * cols),
             "picture: ", rgb.size(), " pixels for an image of ", rows, " x ", cols);
  Surface s(cairo_image_surface_create(CAIRO_FORMAT_RGB24, static_cast<int>(cols), static_cast<int>(rows)));
  check_status(cairo_surface_status(s.get()), "image");
  cairo_surface_flush(s.get());
  unsigned char* data = cairo_image_surface_get_data(s.get());
  const int stride = cairo_image_surface_get_stride(s.get());
  for (std::int64_t r = 0; r < rows; ++r) {
    auto* row = reinterpret_cast<std::uint32_t*>(data + r * stride);
    for (std::int64_t c = 0; c < cols; ++c) {
      const Rgb p = rgb[static_cast<std::size_t>(r * cols + c)];
      row[c] = (std::uint32_t{p.r} << 16) | (std::uint32_t{p.g} << 8) | p.b;
    }
  }
  cairo_surface_mark_dirty(s.get());
  return s;
}

void paint_pixels(cairo_t* cr, std::int64_t rows, std::int64_t cols, const std::vector<Rgb>& rgb,
                  double x, double y, int zoom) {
  HEED_CHECK(zoom >= 1 && rows * zoom <= 32767 && cols * zoom <= 32767, "picture: an image of ",
             rows, " x ", cols, " cannot be enlarged ", zoom, " times");
  std::vector<Rgb> big(static_cast<std::size_t>(rows * cols * zoom * zoom));
  const std::int64_t w = cols * zoom;
  for (std::int64_t r = 0; r < rows * zoom; ++r)
    for (std::int64_t c = 0; c < w; ++c)
      big[static_cast<std::size_t>(r * w + c)] = rgb[static_cast<std::size_t>((r / zoom) * cols + c / zoom)];
  const Surface image = rgb_surface(rows * zoom, w, big);
  cairo_save(cr);
  cairo_set_source_surface(cr, image.get(), x, y);
  cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
  cairo_rectangle(cr, x, y, static_cast<double>(w), static_cast<double>(rows * zoom));
  cairo_fill(cr);
  cairo_restore(cr);
}

std::string render_svg(double width, double height, const DrawFunction& draw,
                       const std::string& title, const std::string& desc,
                       const std::string& id_prefix) {
  std::string svg;
  {
    Surface surface(cairo_svg_surface_create_for_stream(append_bytes, &svg, width, height));
    cairo_svg_surface_set_document_unit(surface.get(), CAIRO_SVG_UNIT_PX);
    Context cr(cairo_create(surface.get()));
    draw(cr.get());
    check_status(cairo_status(cr.get()), "SVG");
    cairo_surface_finish(surface.get());
    check_status(cairo_surface_status(surface.get()), "SVG");
  }
  // Before the title and desc go in: their text is the caller's, not an id.
  if (!id_prefix.empty()) {
    for (const std::string at : {"id=\"", "href=\"#", "url(#"}) {
      for (std::size_t i = svg.find(at); i != std::string::npos; i = svg.find(at, i)) {
        i += at.size();
        svg.insert(i, id_prefix);
      }
    }
  }
  // The words as text (cairo writes glyph outlines only).
  const std::size_t open = svg.find("<svg");
  const std::size_t end = open == std::string::npos ? open : svg.find('>', open);
  HEED_CHECK(end != std::string::npos, "picture: cairo wrote no <svg> element");
  svg.insert(end + 1, "\n<title>" + xml_escape(title) + "</title>\n<desc>" + xml_escape(desc) +
                          "</desc>");
  return svg;
}

std::string render_png(double width, double height, double scale, const DrawFunction& draw) {
  HEED_CHECK(std::isfinite(scale) && scale > 0.0 && scale <= 8.0, "picture: PNG scale ", scale,
             " is not in (0, 8]");
  const int w = static_cast<int>(std::ceil(width * scale));
  const int h = static_cast<int>(std::ceil(height * scale));
  Surface surface(cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h));
  check_status(cairo_surface_status(surface.get()), "PNG");
  {
    Context cr(cairo_create(surface.get()));
    cairo_scale(cr.get(), scale, scale);
    draw(cr.get());
    check_status(cairo_status(cr.get()), "PNG");
  }
  std::string png;
  check_status(cairo_surface_write_to_png_stream(surface.get(), append_bytes, &png), "PNG");
  return png;
}

}  // namespace heed::viz::cairo_drawing
