#pragma once
// One sentence's attention map and saliency map side by side (one above the other when side
// by side would be wider than 1400 px, as for sentences of 30 tokens or more), drawn once with cairo onto
// either an SVG or a PNG surface (what `heed show` writes per sentence): output tokens down
// the left of each map, source tokens along the top (turned upright, reading bottom to top,
// when they do not fit a cell; tokens over 24 characters shortened with "…"), viridis
// colours, a colour bar per map. Text is drawn in DejaVu Sans (fonts-dejavu-core), which
// covers Latin, Greek and Cyrillic; characters it lacks show as boxes.
#include <cstdint>
#include <string>
#include <vector>

namespace heed::viz {

struct AttentionPicture {
  std::string title;     // first line, bold (e.g. "Sentence 3 · score -0.42")
  std::string subtitle;  // second line, grey (e.g. "source → output"); shortened if very long
  std::vector<std::string> source;  // columns
  std::vector<std::string> output;  // rows
  // |output| x |source| row-major, weights on [0, 1]; empty: the model has no attention (the
  // picture says so and shows the saliency alone).
  std::vector<float> attention;
  // The same layout, norms >= 0 drawn on [0, largest]; empty: not computed.
  std::vector<float> saliency;
  // Copy attention (model.copy): per output token, p_gen on [0, 1], drawn as a bar in a
  // column beside the attention map (full: generated from the vocabulary, empty: copied from
  // the source), and whether it was copied (its label in orange, in every map). Empty for
  // other models.
  std::vector<float> p_gen;
  std::vector<std::uint8_t> copied;
  // Coverage (See et al. 2017): under the attention map, each source token's attention
  // summed over the output rows, as a bar with a line at 1; a bar past the line (in orange)
  // was attended more than once in all, what coverage is there to prevent. Needs the map.
  bool coverage = false;
};

struct PictureSize {
  int width = 0, height = 0;  // px at scale 1 (the SVG's size)
};

// Throws heed::Error when there are no tokens on a side, a map has the wrong size or a
// value that is not finite, or both maps are empty.
PictureSize picture_size(const AttentionPicture& picture);
// An SVG document (text as glyph outlines, so it looks the same everywhere), with the
// tokens of both sides in its <title> and <desc> so that it can be searched.
std::string picture_svg(const AttentionPicture& picture);
// PNG bytes, picture_size() x scale pixels (rounded up).
std::string picture_png(const AttentionPicture& picture, double scale = 2.0);

}  // namespace heed::viz
