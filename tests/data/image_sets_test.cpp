// Generated image sets (data/image_sets.h; docs/DATA.md, "Generated image sets") from a
// small source the test makes: every item a solid block of its own value, so where each
// one landed can be read off the canvas.
#include "heed/data/image_sets.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "data/temp_dir.h"
#include "data/solid_items.h"
#include "heed/base/error.h"
#include "heed/data/text_file.h"

namespace heed {
namespace {

constexpr std::int64_t kSide = testing::kSolidItemSide;

IdxLabelledImages source(std::int64_t n) { return testing::solid_items(n); }

ImageSet make(ImageSetKind kind, std::int64_t count, std::uint64_t seed, std::int64_t n = 12) {
  ImageSetOptions o;
  o.kind = kind;
  o.count = count;
  Rng rng(seed);
  return make_image_set(source(n), o, rng);
}

// The pixels the placed items cover exactly hold their values, and (without clutter)
// every other pixel is 0.
void expect_items_drawn(const ImageSet& set, bool clutter) {
  const std::int64_t size = set.images.rows;
  for (std::int64_t i = 0; i < set.images.count; ++i) {
    std::vector<bool> covered(static_cast<std::size_t>(size * size));
    const std::uint8_t* im = set.images.image(i);
    for (const PlacedItem& p : set.items[static_cast<std::size_t>(i)]) {
      ASSERT_GE(p.row, 0);
      ASSERT_GE(p.col, 0);
      ASSERT_LE(p.row + kSide, size);
      ASSERT_LE(p.col + kSide, size);
      EXPECT_EQ(p.label, p.source % 10);
      const auto value = static_cast<std::uint8_t>((p.source + 1) * 10);
      for (std::int64_t r = p.row; r < p.row + kSide; ++r)
        for (std::int64_t c = p.col; c < p.col + kSide; ++c) {
          // Clutter is pasted by maximum, so it may brighten an item, never darken it.
          if (clutter)
            EXPECT_GE(im[r * size + c], value);
          else
            EXPECT_EQ(im[r * size + c], value) << "image " << i << " at " << r << "," << c;
          covered[static_cast<std::size_t>(r * size + c)] = true;
        }
    }
    std::int64_t outside = 0;
    for (std::int64_t k = 0; k < size * size; ++k)
      outside += !covered[static_cast<std::size_t>(k)] && im[k] != 0;
    if (clutter)
      EXPECT_LE(outside, 4 * 8 * 8);
    else
      EXPECT_EQ(outside, 0) << "image " << i;
  }
}

TEST(ImageSets, TranslatedPlacesOneItemAnywhere) {
  const ImageSet set = make(ImageSetKind::translated, 200, 1);
  EXPECT_EQ(set.images.count, 200);
  EXPECT_EQ(set.images.rows, 60);
  EXPECT_EQ(set.images.cols, 60);
  expect_items_drawn(set, false);
  std::int64_t max_row = 0, min_row = 60;
  std::vector<int> used(12);
  for (const auto& items : set.items) {
    ASSERT_EQ(items.size(), 1u);
    max_row = std::max(max_row, items[0].row);
    min_row = std::min(min_row, items[0].row);
    ++used[static_cast<std::size_t>(items[0].source)];
  }
  EXPECT_LT(min_row, 5);   // the whole range 0..32 is used
  EXPECT_GT(max_row, 27);
  // Items are taken in shuffled passes over the source: 200 = 16 passes of 12, plus 8.
  for (int n : used) EXPECT_TRUE(n == 16 || n == 17) << n;
}

TEST(ImageSets, ClutterAddsPiecesOfOtherItems) {
  const ImageSet set = make(ImageSetKind::cluttered, 50, 2);
  expect_items_drawn(set, true);
  std::int64_t clutter = 0;
  for (std::int64_t i = 0; i < set.images.count; ++i) {
    const std::uint8_t* im = set.images.image(i);
    const PlacedItem& p = set.items[static_cast<std::size_t>(i)][0];
    for (std::int64_t k = 0; k < 60 * 60; ++k) {
      const std::int64_t r = k / 60, c = k % 60;
      const bool inside = r >= p.row && r < p.row + kSide && c >= p.col && c < p.col + kSide;
      if (!inside && im[k] != 0) {
        ++clutter;
        EXPECT_NE(im[k], (p.source + 1) * 10) << "a piece of the item shown itself";
      }
    }
  }
  EXPECT_GT(clutter, 50 * 64);  // 4 pieces of 64 pixels, mostly outside the item
}

TEST(ImageSets, CanvasItemsDoNotOverlapAndAreInReadingOrder) {
  const ImageSet set = make(ImageSetKind::canvas, 300, 3);
  EXPECT_EQ(set.images.rows, 100);
  expect_items_drawn(set, false);
  std::vector<int> per_count(5);
  for (const auto& items : set.items) {
    ASSERT_GE(items.size(), 2u);
    ASSERT_LE(items.size(), 4u);
    ++per_count[items.size()];
    for (std::size_t a = 0; a + 1 < items.size(); ++a) {
      EXPECT_TRUE(items[a].row < items[a + 1].row ||
                  (items[a].row == items[a + 1].row && items[a].col < items[a + 1].col));
      for (std::size_t b = a + 1; b < items.size(); ++b)
        EXPECT_TRUE(items[a].row + kSide <= items[b].row || items[b].row + kSide <= items[a].row ||
                    items[a].col + kSide <= items[b].col || items[b].col + kSide <= items[a].col);
    }
  }
  for (int k = 2; k <= 4; ++k) EXPECT_GT(per_count[k], 60) << k << " items";
}

TEST(ImageSets, ReadingOrderIsRowThenColumn) {
  std::vector<PlacedItem> items(3);
  items[0].row = 50, items[0].col = 0, items[0].label = 0;   // lowest
  items[1].row = 0, items[1].col = 60, items[1].label = 1;   // top, right
  items[2].row = 0, items[2].col = 10, items[2].label = 2;   // top, left
  std::sort(items.begin(), items.end(), before_in_reading_order);
  EXPECT_EQ(items[0].label, 2);
  EXPECT_EQ(items[1].label, 1);
  EXPECT_EQ(items[2].label, 0);
  // One row higher wins, whatever the columns.
  PlacedItem a, b;
  a.row = 1, a.col = 0;
  b.row = 0, b.col = 70;
  EXPECT_TRUE(before_in_reading_order(b, a));
}

TEST(ImageSets, DeterministicBySeed) {
  for (ImageSetKind kind : {ImageSetKind::translated, ImageSetKind::cluttered, ImageSetKind::canvas}) {
    EXPECT_EQ(make(kind, 20, 5).images.pixels, make(kind, 20, 5).images.pixels);
    EXPECT_NE(make(kind, 20, 5).images.pixels, make(kind, 20, 6).images.pixels);
  }
}

TEST(ImageSets, PlacingAgainMovesEveryItemAndKeepsItsLabel) {
  for (ImageSetKind kind : {ImageSetKind::translated, ImageSetKind::cluttered}) {
    const ImageSet first = make(kind, 100, 7);
    ImageSet again = first;
    ImageSetOptions o;
    o.kind = kind;
    o.count = 100;
    Rng rng(8);
    place_items_again(again, source(12), o, rng);
    expect_items_drawn(again, kind == ImageSetKind::cluttered);
    std::int64_t moved = 0;
    for (std::size_t i = 0; i < first.items.size(); ++i) {
      ASSERT_EQ(again.items[i].size(), 1u);
      EXPECT_EQ(again.items[i][0].source, first.items[i][0].source) << i;
      EXPECT_EQ(again.items[i][0].label, first.items[i][0].label) << i;
      moved += again.items[i][0].row != first.items[i][0].row ||
               again.items[i][0].col != first.items[i][0].col;
    }
    EXPECT_GT(moved, 90) << enum_name(kind);  // 33x33 corners: a repeat is rare
    // The same generator state places alike.
    ImageSet twice = first;
    Rng rng2(8);
    place_items_again(twice, source(12), o, rng2);
    EXPECT_EQ(twice.images.pixels, again.images.pixels);
  }
}

TEST(ImageSets, PlacingAgainRefusesCanvasSetsAndOtherSizes) {
  ImageSet canvas = make(ImageSetKind::canvas, 5, 1);
  ImageSetOptions o;
  o.kind = ImageSetKind::canvas;
  o.count = 5;
  Rng rng(1);
  EXPECT_THROW(place_items_again(canvas, source(12), o, rng), Error);
  ImageSet translated = make(ImageSetKind::translated, 5, 1);
  o.kind = ImageSetKind::translated;
  o.size = 64;  // the set is 60x60
  EXPECT_THROW(place_items_again(translated, source(12), o, rng), Error);
}

TEST(ImageSets, TargetsNameTheItemsInReadingOrder) {
  testing::TempDir dir;
  const ImageSet set = make(ImageSetKind::canvas, 10, 4);
  constexpr std::string_view names[] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
  write_image_set(dir.file("out"), "train", set, names);
  const std::vector<std::string> lines = read_lines(image_set_targets_file(dir.file("out"), "train"));
  ASSERT_EQ(lines.size(), 10u);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string expected;
    for (const PlacedItem& p : set.items[i]) {
      if (!expected.empty()) expected.push_back(' ');
      expected.append(names[p.label]);
    }
    EXPECT_EQ(lines[i], expected);
  }
  const IdxImages back = read_idx_images(image_set_images_file(dir.file("out"), "train"));
  EXPECT_EQ(back.pixels, set.images.pixels);
}

TEST(ImageSets, ValidatesOptions) {
  ImageSetOptions o;
  o.size = 27;
  EXPECT_THROW(validate_image_set_options(o, 28, 28, 10), UsageError);
  o.kind = ImageSetKind::canvas;
  o.size = 83;
  EXPECT_THROW(validate_image_set_options(o, 28, 28, 10), UsageError);
  o.size = 84;
  EXPECT_NO_THROW(validate_image_set_options(o, 28, 28, 10));
  o.max_items = 5;
  EXPECT_THROW(validate_image_set_options(o, 28, 28, 10), UsageError);
  o = {};
  o.kind = ImageSetKind::cluttered;
  EXPECT_THROW(validate_image_set_options(o, 28, 28, 1), UsageError);  // no other item
  o.piece_size = 29;
  EXPECT_THROW(validate_image_set_options(o, 28, 28, 10), UsageError);
  o = {};
  o.count = 0;
  EXPECT_THROW(validate_image_set_options(o, 28, 28, 10), UsageError);
}

}  // namespace
}  // namespace heed
