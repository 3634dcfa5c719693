#pragma once
// What the cairo pictures share (the attention maps of attention_picture.h, the glimpse
// paths of glimpse_path_picture.h, the grid attention of grid_attention_picture.h): one
// drawing function, written once, rendered to an SVG document or to PNG bytes; text laid out
// by Pango in DejaVu Sans (other installed fonts for what it lacks) with metrics that do not
// depend on the output's resolution; raster images painted pixel for pixel.
#include <cairo.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "heed/viz/colormap.h"

namespace heed::viz::cairo_drawing {

struct CairoDeleter {
  void operator()(cairo_t* cr) const { cairo_destroy(cr); }
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
using Context = std::unique_ptr<cairo_t, CairoDeleter>;
using Surface = std::unique_ptr<cairo_surface_t, CairoDeleter>;

// Draws a picture of width x height px (at scale 1) onto the context it is given.
using DrawFunction = std::function<void(cairo_t*)>;

// Text cairo accepts: valid UTF-8 without control characters (each invalid byte and each
// control character becomes U+FFFD).
std::string drawable(std::string_view text);

// Text is laid out by Pango (pangocairo) in DejaVu Sans at size px, unhinted, so that the
// layout measured once fits the SVG and the PNG at any scale alike; a character DejaVu Sans
// lacks (CJK, for one) is drawn from another installed font that has it (fontconfig's
// fallback), not as a box. cairo's own text calls have no such fallback.
//
// The characters of text that no installed font has (drawn as boxes).
std::size_t missing_glyphs(const std::string& text);
// The advance width of text in px.
double advance(cairo_t* cr, const std::string& text, double size, bool bold = false);
// text with its baseline's left end at (x, y), in the current colour.
void text_at(cairo_t* cr, double x, double y, const std::string& text, double size,
             bool bold = false);
void set_rgb(cairo_t* cr, Rgb c);

// A viridis colour bar of heatmap_style::kBarWidth x height px with its top-left corner at
// (x, y): vmax at the top, 0 at the bottom, five ticks with their values on the right.
void colour_bar(cairo_t* cr, double x, double y, double height, double vmax);
// The width of colour_bar's ticks and their labels, right of the bar.
double colour_bar_labels_width(cairo_t* cr, double vmax);

// A context on a 1x1 scratch surface, for measuring text before the layout is known.
class Measure {
 public:
  Measure();
  cairo_t* get() const { return cr_.get(); }

 private:
  Surface surface_;
  Context cr_;
};

// An image surface of cols x rows pixels, pixel (r, c) coloured rgb[r * cols + c].
Surface rgb_surface(std::int64_t rows, std::int64_t cols, const std::vector<Rgb>& rgb);
// Paints pixels (rows x cols, as rgb_surface) with the top-left corner at (x, y), each pixel
// a square of side zoom px with sharp edges: enlarged here (nearest neighbour), so that an
// SVG viewer, which would smooth a small image stretched, shows the squares too.
void paint_pixels(cairo_t* cr, std::int64_t rows, std::int64_t cols, const std::vector<Rgb>& rgb,
                  double x, double y, int zoom);

// The drawing as an SVG document of width x height px (text as glyph outlines), with
// <title> and <desc> holding title and desc as text, for search and screen readers.
// id_prefix starts every id cairo writes ("glyph0-1", "clip1") and every reference to one:
// cairo numbers them alike in every document, so two documents inline in one HTML page
// would otherwise draw each other's glyphs.
std::string render_svg(double width, double height, const DrawFunction& draw,
                       const std::string& title, const std::string& desc,
                       const std::string& id_prefix = "");
// The drawing as PNG bytes, width x height x scale pixels (rounded up); scale in (0, 8].
std::string render_png(double width, double height, double scale, const DrawFunction& draw);

}  // namespace heed::viz::cairo_drawing
