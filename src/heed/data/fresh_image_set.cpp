#include "heed/data/fresh_image_set.h"

#include <utility>

#include "heed/base/error.h"
#include "heed/base/random.h"

namespace heed {

FreshImageSet::FreshImageSet(IdxLabelledImages source, const ImageSetOptions& options,
                             std::uint64_t seed)
    : source_(std::move(source)), options_(options), seed_(seed) {
  if (options_.size == 0) options_.size = default_canvas_size(options_.kind);
  HEED_CHECK(options_.kind != ImageSetKind::canvas,
             "fresh placements every epoch are for translated and cluttered sets, not canvas");
  Rng rng(seed_);
  set_ = make_image_set(source_, options_, rng);
}

std::uint64_t FreshImageSet::epoch_seed(std::uint64_t seed, std::int64_t epoch) {
  // Another stream than the first epoch's Rng(seed) for every epoch (odd multiplier: distinct
  // epochs give distinct seeds).
  return seed ^ (0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(epoch));
}

void FreshImageSet::move_to(std::int64_t epoch) {
  HEED_CHECK(epoch >= 0, "FreshImageSet::move_to: epoch ", epoch, " is negative");
  if (epoch == epoch_) return;
  if (epoch == 0) {
    Rng rng(seed_);
    set_ = make_image_set(source_, options_, rng);
  } else {
    Rng rng(epoch_seed(seed_, epoch));
    place_items_again(set_, source_, options_, rng);
  }
  epoch_ = epoch;
}

}  // namespace heed
