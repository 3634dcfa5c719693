#pragma once
// ImageEncoder: the encoder of model.kind image2seq (docs/MODELS.md#image-to-sequence; Xu et
// al. 2015, "Show, Attend and Tell"). A small CNN reads the image and the cells of its last
// feature map are the annotations the decoder attends over, in reading order:
//
//   x = pixels / 255 (B, 1, H, W)
//   layer l = 1..conv_layers: x = maxpool2x2(ReLU(conv3x3(x) + b)), conv_channels * 2^(l-1)
//                             channels, zero padding 1 (the side halves, rounded down)
//   a_i = x[:, :, r, c] for cell i = r * gw + c: annotations (B, L = gh * gw, C)
//   h_n = mean_i a_i (the final state a decoder starts from: s_0 = tanh(W_init mean(a)))
//
// Every row has all L cells (lengths L). Parameters: cnn.conv<l>.weight (C_out, C_in, 3, 3)
// and cnn.conv<l>.bias, PyTorch's nn.Conv2d layout and default initialisation.
//
// The image reaches the encoder inside the source TokenBatch (token_batch.h): images holds
// the pixels, len and lengths are L, ids are placeholders (image_source below), so greedy
// and beam search and teacher forcing run unchanged.
#include <cstdint>
#include <utility>

#include "heed/models/encoder.h"
#include "heed/models/model_config.h"
#include "heed/nn/conv_stack.h"

namespace heed {

// The annotation grid (gh, gw) the encoder makes of an image of rows x cols pixels; heed::Error
// naming model.conv_layers when the image is too small for that many poolings.
std::pair<std::int64_t, std::int64_t> image_grid(const ImageEncoderConfig& config,
                                                 std::int64_t rows, std::int64_t cols);
// The channels of the last layer: the annotation size C.
std::int64_t image_annotation_dim(const ImageEncoderConfig& config);

// A source batch for an image model: images (B, 1, H, W), len = lengths = L grid cells of the
// encoder config, ids kPad placeholders.
TokenBatch image_source(Tensor images, const ImageEncoderConfig& config);

class ImageEncoder : public Encoder {
 public:
  ImageEncoder(const ImageEncoderConfig& config, std::int64_t channels, Rng& rng, DType dtype);

  // src.images (B, channels, H, W); src.len must be the grid's L.
  EncoderOutput encode(const TokenBatch& src, const RunMode& mode) const override;
  std::int64_t output_dim() const override { return image_annotation_dim(config_); }
  NamedModules modules() override { return {{"cnn", &cnn_}}; }

 private:
  ImageEncoderConfig config_;
  std::int64_t channels_;
  ConvStack cnn_;
};

}  // namespace heed
