#pragma once
// Every head of every layer of one of a Transformer's attentions for one sentence
// (docs/VISUALIZE.md, `heed show`): the encoder-decoder attention, the encoder's or the
// decoder's self-attention. A grid of small heat maps, one row per layer and one column per
// head, then the layer's heads averaged, each |rows| x |columns| with the row tokens down the
// left of each layer's first map and the column tokens above each layer's maps (tokens left
// out when the cells are too small to hold them), viridis on [0, 1] with one colour bar.
// Drawn once with cairo onto an SVG or a PNG surface, as the attention pictures
// (attention_picture.h).
#include <cstdint>
#include <string>
#include <vector>

namespace heed::viz {

struct HeadsPicture {
  std::string title;
  std::string subtitle;
  std::string axes;                 // a line under the subtitle saying what rows and columns are
  std::vector<std::string> source;  // columns of each map (the keys)
  std::vector<std::string> output;  // rows of each map (the queries)
  std::int64_t heads = 0;
  // Per layer, heads maps of |output| x |source| row-major one after another, weights in [0, 1].
  std::vector<std::vector<float>> layers;
};

// Throws heed::Error when a side has no tokens, there are no layers or no heads, a layer's
// size is not heads x |output| x |source|, or a weight is not finite.
void check_heads_picture(const HeadsPicture& picture);
// Layer l's heads averaged, |output| x |source| row-major (the map drawn after the heads).
std::vector<float> heads_average(const HeadsPicture& picture, std::size_t layer);
std::string heads_svg(const HeadsPicture& picture);
// PNG bytes, the SVG's size x scale pixels (rounded up).
std::string heads_png(const HeadsPicture& picture, double scale = 2.0);

}  // namespace heed::viz
