#pragma once
// What an image-to-sequence model attends to (docs/VISUALIZE.md#grid-attention-over-an-image):
// one grayscale image and, per emitted word, a panel of the same image with that word's
// attention over the encoder's grid laid over it. The grid (grid_rows x grid_cols weights,
// each cell one region of the image) is upsampled to the image's pixels bilinearly, divided
// by the word's largest weight (or by twice the even share 2/L of the L cells when the
// largest is below it: an even spread shows as an even middle colour, not as bright
// everywhere) and blended with the image in viridis, so the brightest
// yellow is where the word looked most; the word and its largest weight stand under its
// panel. The first panel is the image alone (the only one when no word was emitted).
//
// Drawn once with cairo onto an SVG or a PNG surface, as the attention pictures
// (attention_picture.h).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "heed/viz/colormap.h"

namespace heed::viz {

struct GridAttentionPicture {
  std::int64_t rows = 0, cols = 0;            // image pixels
  std::vector<float> pixels;                  // rows*cols, in [0,1], row-major
  std::int64_t grid_rows = 0, grid_cols = 0;  // the attention grid
  std::vector<std::string> words;             // emitted words in order
  std::vector<std::vector<float>> attention;  // per word, grid_rows*grid_cols
  std::string title;
  // The line under the title ("" = the grid attention's own) and the symbol of the largest
  // weight under each panel: another map drawn this way (a classifier's pixel saliency,
  // scaled to sum to 1) names itself.
  std::string note;
  std::string weight_symbol = "\xCE\xB1";
};

// The grid's weights at every pixel of a rows x cols image, bilinear between the centres of
// the cells (cell (a, b) covers rows a rows/grid_rows .. (a + 1) rows/grid_rows, likewise
// columns; past the outer centres the edge cell's value holds). Throws heed::Error when
// grid.size() != grid_rows * grid_cols or a size is below 1.
std::vector<float> upsample_grid(const std::vector<float>& grid, std::int64_t grid_rows,
                                 std::int64_t grid_cols, std::int64_t rows, std::int64_t cols);

// The colours of word w's panel, rows * cols row-major: 45% the image's gray, 55% viridis of
// the upsampled attention divided by the word's largest weight, or by 2/L times the word's
// total weight when that is larger.
std::vector<Rgb> grid_attention_overlay(const GridAttentionPicture& picture, std::size_t word);

// Throws heed::Error for an empty image, a pixel count that is not rows * cols, a number of
// attention rows other than the number of words, an attention row that is not
// grid_rows * grid_cols long, or a weight that is negative or not finite.
void check_grid_attention_picture(const GridAttentionPicture& picture);

// An SVG document; its <title> is the title, its <desc> the words.
std::string grid_attention_svg(const GridAttentionPicture& p);
// PNG bytes, the SVG's size x scale pixels (rounded up).
std::string grid_attention_png(const GridAttentionPicture& p, double scale = 2.0);

}  // namespace heed::viz
