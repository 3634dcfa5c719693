#pragma once
// A translated or cluttered training set whose items move every epoch (data.generate,
// docs/CONFIG.md#data): the image classifiers overfit a fixed set of placements long before
// they stop learning (docs/RESULTS.md#recurrent-attention-model-on-fashion-mnist), so heed
// can draw the set itself and place every item anew at each epoch. The items stay: image i
// shows the same source item, with the same label, in every epoch, so batches and labels
// do not change, only the pixels.
#include <cstdint>

#include "heed/data/image_sets.h"

namespace heed {

class FreshImageSet {
 public:
  // Epoch 0's set: make_image_set(source, options, Rng(seed)), the training set that
  // `heed data images --seed SEED` writes with these options. Throws UsageError for options
  // the source does not suit (validate_image_set_options) and heed::Error for the canvas
  // kind, whose items do not move.
  FreshImageSet(IdxLabelledImages source, const ImageSetOptions& options, std::uint64_t seed);

  // Draws epoch e's canvases (e >= 0): epoch 0's set again, or for e >= 1 every item of it
  // placed anew (place_items_again) from a generator seeded by seed and e alone, so any
  // epoch can be drawn directly (a resumed run, every rank of a data-parallel one).
  void move_to(std::int64_t epoch);

  const ImageSet& set() const { return set_; }
  std::int64_t epoch() const { return epoch_; }

  // The seed of epoch e's placements (e >= 1).
  static std::uint64_t epoch_seed(std::uint64_t seed, std::int64_t epoch);

 private:
  IdxLabelledImages source_;
  ImageSetOptions options_;
  std::uint64_t seed_;
  ImageSet set_;
  std::int64_t epoch_ = 0;
};

}  // namespace heed
