#pragma once
// Every head of every layer of a Transformer's encoder-decoder attention for one sentence
// (docs/VISUALIZE.md, `heed show`): a grid of small heat maps, one row per decoder layer and
// one column per head, each |output| x |source| with the output tokens down the left of each
// row's first map and the source tokens along the top of each column's first map (tokens
// left out when the cells are too small to hold them), viridis on [0, 1] with one colour bar.
// Drawn once with cairo onto an SVG or a PNG surface, as the attention pictures
// (attention_picture.h).
#include <cstdint>
#include <string>
#include <vector>

namespace heed::viz {

struct HeadsPicture {
  std::string title;
  std::string subtitle;
  std::vector<std::string> source;  // columns of each map
  std::vector<std::string> output;  // rows of each map
  std::int64_t heads = 0;
  // Per layer, heads maps of |output| x |source| row-major one after another, weights in [0, 1].
  std::vector<std::vector<float>> layers;
};

// Throws heed::Error when a side has no tokens, there are no layers or no heads, a layer's
// size is not heads x |output| x |source|, or a weight is not finite.
void check_heads_picture(const HeadsPicture& picture);
std::string heads_svg(const HeadsPicture& picture);
// PNG bytes, the SVG's size x scale pixels (rounded up).
std::string heads_png(const HeadsPicture& picture, double scale = 2.0);

}  // namespace heed::viz
