// The glimpse path picture of `heed show --images` (viz/glimpse_path_picture.h): the squares
// are the pixels the sensor reads (the sensor's own rounding, corners and edges included),
// drawn at those pixels in the SVG, partly outside the image where the sensor reads zeros;
// the SVG is well-formed and names the locations, the PNG has the promised size, and bad
// pictures are refused.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <regex>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/kernels/glimpse.h"
#include "heed/viz/glimpse_path_picture.h"
#include "viz/xml_check.h"

namespace heed::viz {
namespace {

GlimpsePathPicture make_picture(std::vector<GlimpseLocation> path) {
  GlimpsePathPicture p;
  p.rows = p.cols = 60;
  p.pixels.assign(60 * 60, 0.0f);
  for (int r = 20; r < 40; ++r)
    for (int c = 10; c < 30; ++c) p.pixels[static_cast<std::size_t>(r * 60 + c)] = 1.0f;
  p.glimpse_size = 8;
  p.scales = 3;
  p.paths.push_back(std::move(path));
  p.title = "image 3 of test-images-idx3-ubyte.gz";
  p.label = "Sandal";
  p.prediction = "Sneaker";
  p.note = "the mean locations";
  return p;
}

// Every axis-aligned rectangle cairo wrote as a path "M x0 y0 L x1 y0 L x1 y1 L x0 y1 Z":
// {x0, y0, x1, y1}.
std::vector<std::array<double, 4>> rectangles(const std::string& svg) {
  static const std::regex rect(
      R"(M ([-0-9.]+) ([-0-9.]+) L ([-0-9.]+) ([-0-9.]+) L ([-0-9.]+) ([-0-9.]+) L ([-0-9.]+) ([-0-9.]+) Z)");
  std::vector<std::array<double, 4>> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), rect); it != std::sregex_iterator(); ++it) {
    const auto& m = *it;
    double v[8];
    for (int k = 0; k < 8; ++k) v[k] = std::stod(m[k + 1]);
    if (v[1] == v[3] && v[2] == v[4] && v[5] == v[7] && v[0] == v[6])
      out.push_back({v[0], v[1], v[2], v[5]});
  }
  return out;
}

bool has_square(const std::vector<std::array<double, 4>>& rects, double x, double y, double side) {
  for (const auto& r : rects)
    if (std::abs(r[0] - x) < 0.01 && std::abs(r[1] - y) < 0.01 && std::abs(r[2] - (x + side)) < 0.01 &&
        std::abs(r[3] - (y + side)) < 0.01)
      return true;
  return false;
}

std::uint32_t big_endian(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t k = 0; k < 4; ++k) v = (v << 8) | static_cast<unsigned char>(s[at + k]);
  return v;
}

TEST(GlimpseSquares, AreThePixelsTheSensorReads) {
  // The centre of a 60 x 60 image is pixel coordinate 30: squares of 8, 16, 32 start at
  // 30 - side / 2.
  auto s = glimpse_squares({0.0, 0.0}, 60, 60, 8, 3);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].row, 26);
  EXPECT_EQ(s[0].col, 26);
  EXPECT_EQ(s[0].side, 8);
  EXPECT_EQ(s[1].row, 22);
  EXPECT_EQ(s[1].side, 16);
  EXPECT_EQ(s[2].row, 14);
  EXPECT_EQ(s[2].side, 32);
  // The top-left corner: each square centred on it, three quarters outside.
  s = glimpse_squares({-1.0, -1.0}, 60, 60, 8, 3);
  EXPECT_EQ(s[0].row, -4);
  EXPECT_EQ(s[1].col, -8);
  EXPECT_EQ(s[2].row, -16);
  // The bottom-right corner: squares end past the last pixel.
  s = glimpse_squares({1.0, 1.0}, 60, 60, 8, 3);
  EXPECT_EQ(s[0].row, 56);
  EXPECT_EQ(s[2].col + s[2].side, 76);
  // Row and column are separate, and a non-square image scales each axis by its own extent:
  // l = (0.5, -0.5) on 40 rows x 80 columns is pixel (30, 20).
  s = glimpse_squares({0.5, -0.5}, 40, 80, 4, 2);
  EXPECT_EQ(s[0].row, 28);
  EXPECT_EQ(s[0].col, 18);
  EXPECT_EQ(s[1].row, 26);
  EXPECT_EQ(s[1].col, 16);
  // Odd sides round as the sensor does (the nearest integer to c - S / 2, halves up).
  for (const double l : {-1.0, -0.73, -0.1, 0.0, 0.31, 0.999, 1.0}) {
    s = glimpse_squares({l, l}, 17, 17, 5, 2);
    EXPECT_EQ(s[0].row, kernels::glimpse_origin(l, 17, 5)) << l;
    EXPECT_EQ(s[1].row, kernels::glimpse_origin(l, 17, 10)) << l;
  }
  EXPECT_THROW(glimpse_squares({1.2, 0.0}, 60, 60, 8, 3), Error);
}

TEST(GlimpsePathPicture, DrawsEachSquareAtItsPixelsPartlyOutsideAtTheEdge) {
  const GlimpsePathPicture p = make_picture({{0.0, 0.0}, {-1.0, -1.0}, {1.0, 0.5}});
  const GlimpsePathLayout L = glimpse_path_layout(p);
  ASSERT_GE(L.zoom, 2);
  const std::string svg = glimpse_path_svg(p);
  const auto rects = rectangles(svg);
  const double z = L.zoom;
  for (const GlimpseLocation& l : p.paths.front()) {
    for (const GlimpseSquare& s : glimpse_squares(l, 60, 60, 8, 3)) {
      const double x = L.image_x + static_cast<double>(s.col) * z;
      const double y = L.image_y + static_cast<double>(s.row) * z;
      EXPECT_TRUE(has_square(rects, x, y, static_cast<double>(s.side) * z))
          << "square of " << s.side << " at (" << s.row << ", " << s.col << ") for l = (" << l.row
          << ", " << l.col << ") not at x " << x << " y " << y;
    }
  }
  // The corner's largest square starts 16 pixels above and left of the image, inside the
  // picture: the band the sensor reads as zeros is drawn.
  const double corner = L.image_x - 16 * z;
  EXPECT_LT(corner, L.image_x);
  EXPECT_GE(corner, 0.0);
  EXPECT_GE(L.image_y - 16 * z, 0.0);
  EXPECT_LE(L.image_x + (60 + 16) * z, L.width);
  const testing::XmlCheck x = testing::check_xml(svg);
  EXPECT_TRUE(x.ok()) << x.error;
  EXPECT_NE(svg.find("<title>image 3 of test-images-idx3-ubyte.gz</title>"), std::string::npos);
  EXPECT_NE(svg.find("label: Sandal"), std::string::npos);
  EXPECT_NE(svg.find("predicted: Sneaker"), std::string::npos);
  EXPECT_NE(svg.find("(0.000, 0.000) (-1.000, -1.000) (1.000, 0.500)"), std::string::npos);
}

TEST(GlimpsePathPicture, PngHasTheLayoutsSizeTimesTheScale) {
  GlimpsePathPicture p = make_picture({{0.0, 0.0}, {0.4, -0.2}});
  p.paths.push_back({{0.0, 0.0}, {-0.3, 0.6}});  // a second path, drawn faintly
  const GlimpsePathLayout L = glimpse_path_layout(p);
  for (const double scale : {1.0, 2.0}) {
    const std::string png = glimpse_path_png(p, scale);
    ASSERT_GT(png.size(), 24u);
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    EXPECT_EQ(big_endian(png, 16), static_cast<std::uint32_t>(std::ceil(L.width * scale)));
    EXPECT_EQ(big_endian(png, 20), static_cast<std::uint32_t>(std::ceil(L.height * scale)));
  }
  // A small image is enlarged more; its squares still land on its pixels.
  GlimpsePathPicture small = make_picture({{0.5, 0.5}});
  small.rows = small.cols = 16;
  small.pixels.assign(256, 0.5f);
  small.glimpse_size = 4;
  EXPECT_GT(glimpse_path_layout(small).zoom, L.zoom);
  EXPECT_TRUE(testing::check_xml(glimpse_path_svg(small)).ok());
}

TEST(GlimpsePathPicture, RefusesWhatItCannotDraw) {
  auto expect_error = [](const GlimpsePathPicture& p, const std::string& words) {
    try {
      glimpse_path_svg(p);
      ADD_FAILURE() << "expected an error with: " << words;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  GlimpsePathPicture p = make_picture({{0.0, 0.0}});
  p.pixels.pop_back();
  expect_error(p, "3599 pixels for an image of 60 x 60");
  p = make_picture({});
  expect_error(p, "no glimpse to draw");
  p = make_picture({{0.0, 0.0}, {0.1, 0.1}});
  p.paths.push_back({{0.0, 0.0}});
  expect_error(p, "a path of 1 steps beside one of 2");
  p = make_picture({{0.0, -1.5}});
  expect_error(p, "outside [-1, 1]^2");
  p = make_picture({{0.0, 0.0}});
  p.scales = 0;
  expect_error(p, "are no sensor");
}

}  // namespace
}  // namespace heed::viz
