#pragma once
// TokenBatch: a padded batch of token ids, what text encoders read and decoders emit, with the
// ids every vocabulary reserves. An image model's source batch carries its images in it
// (docs/ARCHITECTURE.md, "Images as sources"), a speech model's its log-mel frames.
#include <cstdint>
#include <vector>

#include "heed/tensor/tensor.h"

namespace heed {

// Token ids shared by every model and vocabulary.
constexpr std::int32_t kPad = 0, kBos = 1, kEos = 2, kUnk = 3;

// A padded batch of token ids, row-major (B, len), PAD after each row's length.
struct TokenBatch {
  std::int64_t batch = 0;
  std::int64_t len = 0;
  std::vector<std::int32_t> ids;
  std::vector<std::int64_t> lengths;
  // An image model's source (model.kind image2seq): the pixels (B, C, H, W), value / 255; len
  // and every length are then the encoder's L grid cells and ids are kPad placeholders
  // (models/image_encoder.h, image_source). Undefined for text.
  Tensor images{};
  // Copy attention (model.copy; data/copy_map.h): each source position's id over the target
  // vocabulary extended by the sentence's own source words, (B, len), PAD after each row's
  // length; extended: the most such words of any row (extended ids V .. V + extended - 1).
  // Empty for a model without copy.
  std::vector<std::int32_t> copy_ids{};
  std::int64_t extended = 0;
  // A speech model's source (model.kind las): log-mel frames (B, T, bins), zero after each
  // row's frame_lengths; len and every length are then the listener's annotations (frames
  // reduced by model.pyramid) and ids are kPad placeholders (models/listener.h,
  // speech_source). Undefined for text and images.
  Tensor frames{};
  std::vector<std::int64_t> frame_lengths{};
  // A vocabulary shortlist for the whole batch (models/output_shortlist.h): sorted, unique
  // target ids, the specials among them; decoding then scores these outputs only. Empty:
  // the whole target vocabulary.
  std::vector<std::int32_t> shortlist{};
};

// Throws heed::Error (prefixed by what) unless the batch is consistent: ids.size() = batch *
// len, lengths in [1, len] (or 0 when empty_rows_ok), every id in [0, vocab).
void check_token_batch(const TokenBatch& batch, std::int64_t vocab, const char* what,
                       bool empty_rows_ok = false);

}  // namespace heed
