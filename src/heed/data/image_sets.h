#pragma once
// Generated image sets for attention on images (docs/DATA.md, "Generated image sets"):
// items of a labelled image set (Fashion-MNIST's 28x28 pictures) placed on a larger blank
// canvas. `heed data images` (docs/cli/data.md) writes them.
//
//   translated  one item at a uniformly random place on a size x size canvas
//   cluttered   the same, plus `pieces` random piece_size x piece_size windows cut from
//               other items, each at a uniformly random place
//   canvas      min_items..max_items items (uniform count), anywhere, not overlapping;
//               the target is their labels in reading order (reading_order below)
//
// Everything is drawn from the Rng passed in, so a seed, a source and options give the
// same set, byte for byte.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "heed/base/enum_names.h"
#include "heed/base/random.h"
#include "heed/data/idx_file.h"

namespace heed {

enum class ImageSetKind { translated, cluttered, canvas };
inline constexpr EnumName<ImageSetKind> kImageSetKindNames[] = {
    {ImageSetKind::translated, "translated"},
    {ImageSetKind::cluttered, "cluttered"},
    {ImageSetKind::canvas, "canvas"}};
constexpr std::span<const EnumName<ImageSetKind>> enum_names(ImageSetKind) {
  return kImageSetKindNames;
}

struct ImageSetOptions {
  ImageSetKind kind = ImageSetKind::translated;
  std::int64_t size = 0;  // the canvas side; 0 takes default_canvas_size(kind)
  std::int64_t count = 1;
  std::int64_t pieces = 4, piece_size = 8;    // cluttered
  std::int64_t min_items = 2, max_items = 4;  // canvas
};

// 60 for translated and cluttered, 100 for canvas.
std::int64_t default_canvas_size(ImageSetKind kind);

// Throws UsageError unless the options suit items of item_rows x item_cols from a pool of
// pool_size: a canvas that holds an item (canvas: three items' side, and max_items <= 4, so
// that the items find room), a piece no larger than an item, counts at least 1, and for
// cluttered at least two items (pieces come from other items than the one shown).
void validate_image_set_options(const ImageSetOptions& options, std::int64_t item_rows,
                                std::int64_t item_cols, std::int64_t pool_size);

// One source item on a canvas: its index in the source, its label, its top-left pixel.
struct PlacedItem {
  std::int64_t source = 0;
  std::uint8_t label = 0;
  std::int64_t row = 0, col = 0;
};

// Reading order: by the row of the item's centre, then by its column (items of one set
// have one size, so this is the order of their top-left corners, row first).
bool before_in_reading_order(const PlacedItem& a, const PlacedItem& b);

struct ImageSet {
  IdxImages images;
  std::vector<std::vector<PlacedItem>> items;  // per image, in reading order
};

// count images from the source, whose items are taken in a shuffled order (a fresh
// shuffle each time the pool is used up). Validates the options first.
ImageSet make_image_set(const IdxLabelledImages& source, const ImageSetOptions& options, Rng& rng);

// The same images of a translated or cluttered set with every item placed anew (and, for
// cluttered, new pieces), drawn from rng as make_image_set draws them: each image keeps its
// item (source and label), so the labels stay. For data.generate (docs/CONFIG.md#data): a
// training set whose items move every epoch. HEED_CHECK fails for a canvas set or a set
// whose sizes are not the options'.
void place_items_again(ImageSet& set, const IdxLabelledImages& source,
                       const ImageSetOptions& options, Rng& rng);

// Writes <dir>/<split>-images-idx3-ubyte.gz (the canvases) and <dir>/<split>.tgt (per
// image, its items' class names in reading order, separated by spaces), each atomically.
void write_image_set(const std::string& dir, const std::string& split, const ImageSet& set,
                     std::span<const std::string_view> class_names);

// The file names write_image_set uses.
std::string image_set_images_file(const std::string& dir, const std::string& split);
std::string image_set_targets_file(const std::string& dir, const std::string& split);

}  // namespace heed
