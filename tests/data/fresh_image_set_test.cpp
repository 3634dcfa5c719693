// A training set placed anew every epoch (data/fresh_image_set.h; data.generate in
// docs/CONFIG.md#data), from a small source the test makes: item i is a solid block of
// (i + 1) * 10, so where it landed can be read off the canvas.
#include "heed/data/fresh_image_set.h"

#include <gtest/gtest.h>

#include "data/solid_items.h"
#include "heed/base/error.h"
#include "heed/base/random.h"

namespace heed {
namespace {

IdxLabelledImages source(std::int64_t n) { return testing::solid_items(n); }

ImageSetOptions options(ImageSetKind kind) {
  ImageSetOptions o;
  o.kind = kind;
  o.count = 40;
  return o;
}

TEST(FreshImageSet, EpochZeroIsTheSetHeedDataImagesWrites) {
  for (ImageSetKind kind : {ImageSetKind::translated, ImageSetKind::cluttered}) {
    FreshImageSet fresh(source(12), options(kind), 99);
    Rng rng(99);
    const ImageSet written = make_image_set(source(12), options(kind), rng);
    EXPECT_EQ(fresh.epoch(), 0);
    EXPECT_EQ(fresh.set().images.pixels, written.images.pixels);
    EXPECT_EQ(fresh.set().images.rows, 60);
  }
}

TEST(FreshImageSet, EveryEpochMovesTheItemsAndKeepsTheLabels) {
  FreshImageSet fresh(source(12), options(ImageSetKind::cluttered), 5);
  const ImageSet first = fresh.set();
  std::vector<std::uint8_t> previous = first.images.pixels;
  for (std::int64_t e = 1; e <= 3; ++e) {
    fresh.move_to(e);
    EXPECT_EQ(fresh.epoch(), e);
    EXPECT_NE(fresh.set().images.pixels, previous) << "epoch " << e;
    previous = fresh.set().images.pixels;
    std::int64_t moved = 0;
    for (std::size_t i = 0; i < first.items.size(); ++i) {
      EXPECT_EQ(fresh.set().items[i][0].source, first.items[i][0].source);
      EXPECT_EQ(fresh.set().items[i][0].label, first.items[i][0].label);
      moved += fresh.set().items[i][0].row != first.items[i][0].row;
    }
    EXPECT_GT(moved, 30) << "epoch " << e;
  }
}

TEST(FreshImageSet, AnyEpochIsDrawnFromTheSeedAndTheEpochAlone) {
  // A resumed run (or another rank) goes straight to its epoch: same canvases as the run
  // that went through every epoch before it.
  FreshImageSet walked(source(12), options(ImageSetKind::translated), 3);
  for (std::int64_t e = 1; e <= 4; ++e) walked.move_to(e);
  FreshImageSet jumped(source(12), options(ImageSetKind::translated), 3);
  jumped.move_to(4);
  EXPECT_EQ(jumped.set().images.pixels, walked.set().images.pixels);
  // Back to epoch 0: the first set again.
  FreshImageSet first(source(12), options(ImageSetKind::translated), 3);
  jumped.move_to(0);
  EXPECT_EQ(jumped.set().images.pixels, first.set().images.pixels);
  // Another seed, other placements in the same epoch.
  FreshImageSet other(source(12), options(ImageSetKind::translated), 4);
  other.move_to(4);
  EXPECT_NE(other.set().images.pixels, walked.set().images.pixels);
  EXPECT_NE(FreshImageSet::epoch_seed(3, 1), FreshImageSet::epoch_seed(3, 2));
  EXPECT_NE(FreshImageSet::epoch_seed(3, 1), 3u);
}

TEST(FreshImageSet, RefusesCanvasSetsAndBadOptions) {
  EXPECT_THROW(FreshImageSet(source(12), options(ImageSetKind::canvas), 1), Error);
  ImageSetOptions small = options(ImageSetKind::translated);
  small.size = 20;  // smaller than an item
  EXPECT_THROW(FreshImageSet(source(12), small, 1), UsageError);
  FreshImageSet fresh(source(12), options(ImageSetKind::translated), 1);
  EXPECT_THROW(fresh.move_to(-1), Error);
}

}  // namespace
}  // namespace heed
