#pragma once
// Decoding images into class-name sequences with model.kind image2seq
// (docs/MODELS.md#image-to-sequence): the words each image gets, and for each word where the
// decoder attended on the encoder's grid, for `heed eval --attention` and for pictures.
#include <cstdint>
#include <string>
#include <vector>

#include "heed/data/vocabulary.h"
#include "heed/decode/decode_options.h"
#include "heed/models/seq2seq.h"
#include "heed/store/model_dir.h"

namespace heed {

struct DecodedImage {
  std::vector<std::int32_t> tokens;   // the output ids, EOS included when it was emitted
  std::vector<std::string> words;     // the output class names, without EOS
  std::int64_t grid_rows = 0, grid_cols = 0;  // the annotation grid (gh, gw)
  // Per word (words.size() rows) its attention over the gh * gw grid cells in reading order
  // (cell r * gw + c); empty when the model does not attend (model.attention.mode none).
  std::vector<std::vector<float>> attention;
};

// Decodes images (B, 1, H, W), pixel / 255 (classifier_images makes them), with model (an
// image2seq model, in eval mode): greedy when options.beam is 1, else beam search; the best
// hypothesis of each image. names: the model's target vocabulary.
std::vector<DecodedImage> decode_images(const Seq2Seq& model, const Vocabulary& names,
                                        const Tensor& images, const DecodeOptions& options);

}  // namespace heed
