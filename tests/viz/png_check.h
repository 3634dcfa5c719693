#pragma once
// PNG bytes as the tests read them back: the size in the IHDR chunk (after checking the
// signature), and the pixels of one exact colour, decoded by cairo.
#include <cairo.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "heed/viz/colormap.h"

namespace heed::testing {

struct PngSize {
  std::uint32_t width = 0, height = 0;
};

// The signature and the IHDR chunk first (a failed expectation otherwise), and its size.
inline PngSize png_size(const std::string& png) {
  auto big_endian = [&](std::size_t at) {
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(png[at + k]);
    return v;
  };
  if (png.size() < 33) {
    ADD_FAILURE() << "not a PNG: " << png.size() << " bytes";
    return {};
  }
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(big_endian(8), 13u);  // IHDR's length
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  return {big_endian(16), big_endian(20)};
}

// Pixels exactly of colour c (the inside of a line, away from its smoothed edges).
inline std::size_t pixels_of(const std::string& png, viz::Rgb c) {
  struct Reader {
    const std::string& data;
    std::size_t at = 0;
  } reader{png};
  cairo_surface_t* s = cairo_image_surface_create_from_png_stream(
      [](void* closure, unsigned char* out, unsigned int length) {
        auto* r = static_cast<Reader*>(closure);
        if (r->at + length > r->data.size()) return CAIRO_STATUS_READ_ERROR;
        r->data.copy(reinterpret_cast<char*>(out), length, r->at);
        r->at += length;
        return CAIRO_STATUS_SUCCESS;
      },
      &reader);
  std::size_t n = 0;
  if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
    ADD_FAILURE() << "cairo cannot read the PNG: " << cairo_status_to_string(cairo_surface_status(s));
  } else {
    const unsigned char* data = cairo_image_surface_get_data(s);
    const int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    const int stride = cairo_image_surface_get_stride(s);
    const std::uint32_t want = (std::uint32_t{c.r} << 16) | (std::uint32_t{c.g} << 8) | c.b;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        if ((reinterpret_cast<const std::uint32_t*>(data + y * stride)[x] & 0xFFFFFFu) == want) ++n;
  }
  cairo_surface_destroy(s);
  return n;
}

}  // namespace heed::testing
