// The grid attention picture (viz/grid_attention_picture.h): the bilinear upsampling of the
// grid, a one-hot cell that lights up its own region of the image, one panel per word (and
// one for the image), a well-formed SVG, and the refusals.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "heed/base/error.h"
#include "heed/viz/colormap.h"
#include "heed/viz/grid_attention_picture.h"
#include "viz/xml_check.h"

namespace heed::viz {
namespace {

GridAttentionPicture make_picture(std::size_t words) {
  GridAttentionPicture p;
  p.rows = p.cols = 30;
  p.pixels.assign(30 * 30, 0.5f);
  p.grid_rows = p.grid_cols = 3;
  for (std::size_t w = 0; w < words; ++w) {
    p.words.push_back("word" + std::to_string(w));
    std::vector<float> a(9, 0.0f);
    a[w % 9] = 1.0f;
    p.attention.push_back(a);
  }
  p.title = "canvas 4 \xC2\xB7 Sandal Bag";
  return p;
}

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(UpsampleGrid, IsBilinearBetweenCellCentres) {
  // A 2 x 2 grid over 4 x 4 pixels: pixel centres sit at -0.25, 0.25, 0.75, 1.25 in cell
  // units, the cell centres at 0 and 1 (the outer pixels hold the edge value).
  const std::vector<float> up = upsample_grid({0.0f, 1.0f, 0.0f, 1.0f}, 2, 2, 4, 4);
  const float row[] = {0.0f, 0.25f, 0.75f, 1.0f};
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_FLOAT_EQ(up[static_cast<std::size_t>(r * 4 + c)], row[c]);
  // A constant grid stays constant; one cell to many pixels copies it.
  for (float v : upsample_grid(std::vector<float>(12, 0.25f), 3, 4, 17, 9)) EXPECT_FLOAT_EQ(v, 0.25f);
  for (float v : upsample_grid({0.7f}, 1, 1, 5, 5)) EXPECT_FLOAT_EQ(v, 0.7f);
  EXPECT_THROW(upsample_grid({1.0f, 2.0f}, 2, 2, 4, 4), Error);
}

TEST(GridAttentionPicture, AOneHotCellIsBrightestInItsRegion) {
  GridAttentionPicture p = make_picture(1);
  p.attention[0] = {0, 0, 1, 0, 0, 0, 0, 0, 0};  // the top-right cell: rows 0-9, columns 20-29
  const std::vector<Rgb> overlay = grid_attention_overlay(p, 0);
  ASSERT_EQ(overlay.size(), 900u);
  double best = -1;
  int best_r = -1, best_c = -1;
  for (int r = 0; r < 30; ++r)
    for (int c = 0; c < 30; ++c) {
      const double l = luminance(overlay[static_cast<std::size_t>(r * 30 + c)]);
      if (l > best) best = l, best_r = r, best_c = c;
    }
  EXPECT_LT(best_r, 10);
  EXPECT_GE(best_c, 20);
  // Far from the cell (the bottom-left third) the overlay is at its darkest, and darker than
  // the cell's centre by far.
  const double far = luminance(overlay[25 * 30 + 4]);
  const double centre = luminance(overlay[4 * 30 + 25]);
  EXPECT_GT(centre, far + 0.3);
  EXPECT_DOUBLE_EQ(centre, best);
  // A uniform grid gives a uniform overlay in the scale's middle colour (the even share is
  // half of full colour), darker than a focused word's peak.
  p.attention[0].assign(9, 1.0f / 9.0f);
  const std::vector<Rgb> flat = grid_attention_overlay(p, 0);
  for (const Rgb& c : flat) EXPECT_EQ(c, flat.front());
  const Rgb mid = viridis(0.5);
  EXPECT_NEAR(flat.front().g, 0.45 * 127.5 + 0.55 * mid.g, 1.0);
  EXPECT_LT(luminance(flat.front()), best - 0.2);
}

TEST(GridAttentionPicture, OnePanelPerWordAndAWellFormedSvg) {
  for (const std::size_t words : {0u, 1u, 3u, 9u}) {  // 0: nothing emitted, the image alone
    const GridAttentionPicture p = make_picture(words);
    const std::string svg = grid_attention_svg(p);
    const testing::XmlCheck x = testing::check_xml(svg);
    EXPECT_TRUE(x.ok()) << x.error;
    // The image alone, then one panel per word: each a painted image.
    EXPECT_EQ(count(svg, "<image "), words + 1) << words;
    EXPECT_NE(svg.find("<title>canvas 4 \xC2\xB7 Sandal Bag</title>"), std::string::npos);
    EXPECT_NE(svg.find(words ? "words: word0" : "words:"), std::string::npos);
    const std::string png = grid_attention_png(p, 1.0);
    EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  }
}

TEST(GridAttentionPicture, RefusesWhatItCannotDraw) {
  auto expect_error = [](const GridAttentionPicture& p, const std::string& words) {
    try {
      grid_attention_svg(p);
      ADD_FAILURE() << "expected an error with: " << words;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  GridAttentionPicture p = make_picture(2);
  p.attention[1].pop_back();
  expect_error(p, "word 1 ('word1') has 8 weights for a grid of 3 x 3");
  p = make_picture(2);
  p.words.pop_back();
  expect_error(p, "2 attention rows for 1 words");
  p = make_picture(1);
  p.attention[0][4] = -0.5f;
  expect_error(p, "weight -0.5 is not a finite non-negative number");
  p = make_picture(1);
  p.pixels.resize(10);
  expect_error(p, "10 pixels for an image of 30 x 30");
}

}  // namespace
}  // namespace heed::viz
