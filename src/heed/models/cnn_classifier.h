#pragma once
// The small convolutional image classifier (model.kind cnn; docs/MODELS.md#small-cnn): the
// convolution stack of nn/conv_stack.h (model.conv_layers layers of conv 3x3 + ReLU + 2x2
// max-pool, model.conv_channels doubling per layer) and a linear classifier over its
// flattened output.
//
//   f = flatten(ConvStack(x))              (B, C' * H' * W')
//   p(y | x) = softmax(W_c f + b_c)
#include <cstdint>

#include "heed/models/image_classifier.h"
#include "heed/nn/conv_stack.h"
#include "heed/nn/linear.h"

namespace heed {

class CnnClassifier : public WholeImageClassifier {
 public:
  // Throws heed::Error naming the key unless the sizes are valid (validate_cnn_config).
  CnnClassifier(const ModelConfig& config, std::int64_t channels, Rng& rng,
                DType dtype = DType::f32);

  // Logits (B, classes) of images (B, C, model.image_height, model.image_width).
  Var forward(const Var& images) const override;
  std::int64_t classes() const override { return classes_; }
  std::int64_t channels() const override { return channels_; }

 private:
  std::int64_t height_, width_, classes_, channels_, features_;
  ConvStack stack_;
  Linear classifier_;
};

// Throws heed::Error naming the model key unless a cnn model can be built: the image size,
// conv_layers from 1 to 8 with pooling that leaves at least one pixel, conv_channels positive,
// at least one class.
void validate_cnn_config(const ModelConfig& config);

}  // namespace heed
