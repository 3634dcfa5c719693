#pragma once
// Where the recurrent attention model looked (docs/VISUALIZE.md#where-a-glimpse-model-looks):
// one grayscale image, enlarged, with the glimpse path of the model drawn on it, each step t
// in its own colour: the k squares the glimpse sensor read (sides g, 2g, ..., 2^(k-1) g
// pixels, at exactly the pixels kernels/glimpse.h reads), the step's number 0..T-1 at the
// location, and lines joining the locations in order. The label and the prediction stand in
// the title. A square that reaches past the image's edge is drawn partly outside it, over a
// dark band around the image: the sensor reads zeros there. Further paths (M sampled paths)
// are drawn faintly under the first, as lines and dots without squares.
//
// Drawn once with cairo onto an SVG or a PNG surface, as the attention pictures
// (attention_picture.h).
#include <cstdint>
#include <string>
#include <vector>

namespace heed::viz {

// A glimpse location as the model gives it: (row, col) in [-1, 1]^2, (-1, -1) the image's
// top-left corner, (1, 1) its bottom-right corner (docs/MODELS.md#glimpse-sensor).
struct GlimpseLocation {
  double row = 0.0, col = 0.0;
};

struct GlimpsePathPicture {
  std::int64_t rows = 0, cols = 0;  // image pixels
  std::vector<float> pixels;        // rows * cols, in [0, 1] (0 black), row-major
  std::int64_t glimpse_size = 0;    // g: the smallest square's side in pixels
  std::int64_t scales = 0;          // k: squares per glimpse
  // Per path l_0..l_{T-1}; paths[0] is drawn in full, the others faintly. Every path has
  // the same number of steps.
  std::vector<std::vector<GlimpseLocation>> paths;
  std::string title;       // first line, bold (e.g. "image 7")
  std::string label;       // the true class ("" unknown)
  std::string prediction;  // the predicted class ("" none); with label: "right" or "wrong"
  std::string note;        // a grey line under the title (e.g. "mean locations")
};

// The pixels a square of the sensor reads: rows row .. row + side - 1 and columns col .. col
// + side - 1 of the image; row or col may be negative and the square may end past the image,
// where the sensor reads zeros.
struct GlimpseSquare {
  std::int64_t row = 0, col = 0, side = 0;
};

// The k squares of a glimpse at l, finest first (kernels::glimpse_origin, the sensor's own
// rounding). Throws heed::Error for a location outside [-1, 1]^2 (the sensor's refusal).
std::vector<GlimpseSquare> glimpse_squares(const GlimpseLocation& l, std::int64_t rows,
                                           std::int64_t cols, std::int64_t glimpse_size,
                                           std::int64_t scales);

// Where the picture puts the image: pixel (r, c) of the image covers
// [image_x + c zoom, image_x + (c + 1) zoom) x [image_y + r zoom, image_y + (r + 1) zoom) in
// the SVG's px (times the PNG scale in the PNG).
struct GlimpsePathLayout {
  double width = 0, height = 0;  // the SVG's size in px
  double image_x = 0, image_y = 0;
  int zoom = 1;
};

// Throws heed::Error for an empty image, a pixel count that is not rows * cols, a pixel or a
// location that is not finite, a location outside [-1, 1]^2, no path, paths of different
// lengths or of no step, or g or k below 1.
GlimpsePathLayout glimpse_path_layout(const GlimpsePathPicture& picture);
// An SVG document; its <title> is the title, its <desc> the label, the prediction and the
// locations of the first path as text.
std::string glimpse_path_svg(const GlimpsePathPicture& picture);
// PNG bytes, the layout's size x scale pixels (rounded up).
std::string glimpse_path_png(const GlimpsePathPicture& picture, double scale = 2.0);

}  // namespace heed::viz
