#include "heed/data/image_sets.h"

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <sstream>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"

namespace heed {
namespace {

// Draws canvases again at most this often before giving up on a canvas's layout (with the
// validated sizes one in a few draws needs a second; the limit only guards the loop).
constexpr int kMaxLayoutDraws = 1000;

// The source items in a shuffled order, reshuffled each time it is used up.
class ItemStream {
 public:
  ItemStream(std::int64_t n, Rng& rng) : order_(static_cast<std::size_t>(n)), rng_(rng) {
    std::iota(order_.begin(), order_.end(), std::int64_t{0});
    next_ = order_.size();
  }
  std::int64_t next() {
    if (next_ == order_.size()) {
      for (std::size_t i = order_.size(); i > 1; --i)
        std::swap(order_[i - 1], order_[rng_.below(i)]);
      next_ = 0;
    }
    return order_[next_++];
  }

 private:
  std::vector<std::int64_t> order_;
  Rng& rng_;
  std::size_t next_ = 0;
};

// canvas[r][c] = max(canvas[r][c], item window) for the h x w window of the source image at
// (src_row, src_col), placed with its top-left corner at (row, col).
void paste_max(std::uint8_t* canvas, std::int64_t size, const IdxImages& src, std::int64_t item,
               std::int64_t src_row, std::int64_t src_col, std::int64_t h, std::int64_t w,
               std::int64_t row, std::int64_t col) {
  const std::uint8_t* im = src.image(item);
  for (std::int64_t r = 0; r < h; ++r) {
    std::uint8_t* out = canvas + (row + r) * size + col;
    const std::uint8_t* in = im + (src_row + r) * src.cols + src_col;
    for (std::int64_t c = 0; c < w; ++c) out[c] = std::max(out[c], in[c]);
  }
}

bool overlap(const PlacedItem& a, const PlacedItem& b, std::int64_t rows, std::int64_t cols) {
  return a.row < b.row + rows && b.row < a.row + rows && a.col < b.col + cols &&
         b.col < a.col + cols;
}

// The canvas kind's layout: min..max items, each uniformly among the top-left corners where
// it overlaps none placed before; a layout where one finds no room is drawn again.
std::vector<PlacedItem> canvas_layout(const ImageSetOptions& o, std::int64_t rows,
                                      std::int64_t cols, Rng& rng) {
  const std::int64_t n = o.min_items + static_cast<std::int64_t>(rng.below(
                                           static_cast<std::uint64_t>(o.max_items - o.min_items + 1)));
  const std::int64_t span_r = o.size - rows + 1, span_c = o.size - cols + 1;
  std::vector<PlacedItem> placed;
  std::vector<std::int64_t> free;
  for (int draw = 0; draw < kMaxLayoutDraws; ++draw) {
    placed.clear();
    while (static_cast<std::int64_t>(placed.size()) < n) {
      free.clear();
      PlacedItem p;
      for (p.row = 0; p.row < span_r; ++p.row)
        for (p.col = 0; p.col < span_c; ++p.col)
          if (std::none_of(placed.begin(), placed.end(),
                           [&](const PlacedItem& q) { return overlap(p, q, rows, cols); }))
            free.push_back(p.row * span_c + p.col);
      if (free.empty()) break;
      const std::int64_t at = free[rng.below(free.size())];
      p.row = at / span_c;
      p.col = at % span_c;
      placed.push_back(p);
    }
    if (static_cast<std::int64_t>(placed.size()) == n) return placed;
  }
  throw Error(detail::concat("no room for ", n, " items of ", rows, "x", cols, " on a ", o.size,
                             "x", o.size, " canvas after ", kMaxLayoutDraws, " layouts"));
}

std::int64_t draw_below(Rng& rng, std::int64_t span) {
  return static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(span)));
}

// The translated and cluttered kinds' one item: a uniformly random top-left corner.
PlacedItem draw_single_place(std::int64_t size, const IdxImages& src, Rng& rng) {
  PlacedItem p;
  p.row = draw_below(rng, size - src.rows + 1);
  p.col = draw_below(rng, size - src.cols + 1);
  return p;
}

// The cluttered kind's pieces: o.pieces windows of piece_size x piece_size, each cut at a
// random place from a random item other than `shown` and pasted at a random place.
void paste_clutter(std::uint8_t* canvas, const ImageSetOptions& o, const IdxImages& src,
                   std::int64_t shown, Rng& rng) {
  const std::int64_t k = o.piece_size;
  for (std::int64_t j = 0; j < o.pieces; ++j) {
    // Any item but the one shown: draw among the others.
    std::int64_t other = draw_below(rng, src.count - 1);
    if (other >= shown) ++other;
    const std::int64_t sr = draw_below(rng, src.rows - k + 1), sc = draw_below(rng, src.cols - k + 1);
    const std::int64_t r = draw_below(rng, o.size - k + 1), c = draw_below(rng, o.size - k + 1);
    paste_max(canvas, o.size, src, other, sr, sc, k, k, r, c);
  }
}

ImageSetOptions with_default_size(const ImageSetOptions& options) {
  ImageSetOptions o = options;
  if (o.size == 0) o.size = default_canvas_size(o.kind);
  return o;
}

}  // namespace

std::int64_t default_canvas_size(ImageSetKind kind) {
  return kind == ImageSetKind::canvas ? 100 : 60;
}

void validate_image_set_options(const ImageSetOptions& o, std::int64_t item_rows,
                                std::int64_t item_cols, std::int64_t pool_size) {
  auto usage = [](bool ok, auto&&... what) {
    if (!ok) throw UsageError(detail::concat(what...));
  };
  const std::int64_t size = o.size ? o.size : default_canvas_size(o.kind);
  const std::int64_t item = std::max(item_rows, item_cols);
  usage(o.count >= 1, "--count must be at least 1, got ", o.count);
  usage(pool_size >= 1, "the source holds no images");
  usage(size >= item, "--size ", size, " is smaller than the items (", item_rows, "x", item_cols,
        "): the canvas must hold one");
  if (o.kind == ImageSetKind::cluttered) {
    usage(o.pieces >= 0, "--pieces must be at least 0, got ", o.pieces);
    usage(o.piece_size >= 1 && o.piece_size <= std::min(item_rows, item_cols), "--piece-size ",
          o.piece_size, " must be between 1 and the items' side, ",
          std::min(item_rows, item_cols));
    usage(pool_size >= 2 || o.pieces == 0,
          "cluttered images take their pieces from other items than the one shown: the source "
          "needs at least 2 images, it holds ",
          pool_size);
  }
  if (o.kind == ImageSetKind::canvas) {
    usage(o.min_items >= 1 && o.min_items <= o.max_items && o.max_items <= 4, "--items ",
          o.min_items, "-", o.max_items, ": the counts must satisfy 1 <= min <= max <= 4");
    usage(size >= 3 * item, "--size ", size, " is too small for a canvas of up to ", o.max_items,
          " items of ", item_rows, "x", item_cols, ": it must be at least ", 3 * item);
  }
}

bool before_in_reading_order(const PlacedItem& a, const PlacedItem& b) {
  return a.row != b.row ? a.row < b.row : a.col < b.col;
}

ImageSet make_image_set(const IdxLabelledImages& source, const ImageSetOptions& options, Rng& rng) {
  const ImageSetOptions o = with_default_size(options);
  const IdxImages& src = source.images;
  validate_image_set_options(o, src.rows, src.cols, src.count);
  ImageSet set;
  set.images.count = o.count;
  set.images.rows = set.images.cols = o.size;
  set.images.pixels.assign(static_cast<std::size_t>(o.count * o.size * o.size), 0);
  set.items.resize(static_cast<std::size_t>(o.count));
  ItemStream stream(src.count, rng);
  for (std::int64_t i = 0; i < o.count; ++i) {
    std::uint8_t* canvas = set.images.image(i);
    std::vector<PlacedItem>& items = set.items[static_cast<std::size_t>(i)];
    if (o.kind == ImageSetKind::canvas) items = canvas_layout(o, src.rows, src.cols, rng);
    else items.push_back(draw_single_place(o.size, src, rng));
    for (PlacedItem& p : items) {
      p.source = stream.next();
      p.label = source.labels[static_cast<std::size_t>(p.source)];
      paste_max(canvas, o.size, src, p.source, 0, 0, src.rows, src.cols, p.row, p.col);
    }
    if (o.kind == ImageSetKind::cluttered) paste_clutter(canvas, o, src, items[0].source, rng);
    std::sort(items.begin(), items.end(), before_in_reading_order);
  }
  return set;
}

void place_items_again(ImageSet& set, const IdxLabelledImages& source,
                       const ImageSetOptions& options, Rng& rng) {
  const ImageSetOptions o = with_default_size(options);
  const IdxImages& src = source.images;
  validate_image_set_options(o, src.rows, src.cols, src.count);
  HEED_CHECK(o.kind != ImageSetKind::canvas,
             "only translated and cluttered sets can place their items again, not canvas");
  HEED_CHECK(set.images.rows == o.size && set.images.cols == o.size &&
                 set.items.size() == static_cast<std::size_t>(set.images.count),
             "place_items_again: a set of ", set.images.count, " images of ", set.images.rows, "x",
             set.images.cols, " does not match a ", o.size, "x", o.size, " set");
  std::fill(set.images.pixels.begin(), set.images.pixels.end(), std::uint8_t{0});
  for (std::int64_t i = 0; i < set.images.count; ++i) {
    std::vector<PlacedItem>& items = set.items[static_cast<std::size_t>(i)];
    HEED_CHECK(items.size() == 1 && items[0].source >= 0 && items[0].source < src.count,
               "place_items_again: image ", i, " does not hold one item of the source");
    std::uint8_t* canvas = set.images.image(i);
    const PlacedItem at = draw_single_place(o.size, src, rng);
    items[0].row = at.row;
    items[0].col = at.col;
    paste_max(canvas, o.size, src, items[0].source, 0, 0, src.rows, src.cols, at.row, at.col);
    if (o.kind == ImageSetKind::cluttered) paste_clutter(canvas, o, src, items[0].source, rng);
  }
}

std::string image_set_images_file(const std::string& dir, const std::string& split) {
  return (std::filesystem::path(dir) / (split + "-images-idx3-ubyte.gz")).string();
}

std::string image_set_targets_file(const std::string& dir, const std::string& split) {
  return (std::filesystem::path(dir) / (split + ".tgt")).string();
}

void write_image_set(const std::string& dir, const std::string& split, const ImageSet& set,
                     std::span<const std::string_view> class_names) {
  std::ostringstream targets;
  for (const std::vector<PlacedItem>& items : set.items) {
    for (std::size_t j = 0; j < items.size(); ++j) {
      HEED_CHECK(items[j].label < class_names.size(), "label ", int{items[j].label},
                 " has no class name (", class_names.size(), " classes)");
      targets << (j ? " " : "") << class_names[items[j].label];
    }
    targets << '\n';
  }
  std::filesystem::create_directories(dir);
  write_idx_images(image_set_images_file(dir, split), set.images);
  write_file_atomically(image_set_targets_file(dir, split), targets.str());
}

}  // namespace heed
