// The small convolutional image classifier (docs/MODELS.md#small-cnn); the equations are in
// cnn_classifier.h. Registered as model.kind cnn.
#include "heed/models/cnn_classifier.h"

#include "heed/autograd/index.h"
#include "heed/base/error.h"
#include "heed/models/model_registry.h"

namespace heed {

namespace {

std::int64_t flattened(const ModelConfig& c) {
  const auto [C, H, W] = conv_stack_output(c.image.conv_layers, c.image.conv_channels,
                                           c.classifier.image_height, c.classifier.image_width);
  return C * H * W;
}

}  // namespace

void validate_cnn_config(const ModelConfig& c) {
  HEED_CHECK(classifier_classes(c) >= 1, "model: a cnn model needs at least one class, got ",
             classifier_classes(c));
  validate_image_size(c);
  HEED_CHECK(c.image.conv_layers >= 1 && c.image.conv_layers <= 8,
             "model.conv_layers must be from 1 to 8, got ", c.image.conv_layers);
  HEED_CHECK(c.image.conv_channels >= 1 && (c.image.conv_channels << (c.image.conv_layers - 1)) <= 4096,
             "model.conv_channels must be at least 1 and its last layer's ",
             c.image.conv_channels, " x 2^", c.image.conv_layers - 1, " at most 4096");
  flattened(c);  // names model.conv_layers when the images are too small
}

CnnClassifier::CnnClassifier(const ModelConfig& config, std::int64_t channels, Rng& rng,
                             DType dtype)
    : height_((validate_cnn_config(config), config.classifier.image_height)),
      width_(config.classifier.image_width), classes_(classifier_classes(config)),
      channels_(channels), features_(flattened(config)),
      stack_(channels, config.image.conv_layers, config.image.conv_channels, rng, dtype),
      classifier_(features_, classes_, true, rng, dtype) {
  register_module("features", stack_);
  register_module("classifier", classifier_);
}

Var CnnClassifier::forward(const Var& images) const {
  HEED_CHECK(images.value().ndim() == 4 && images.dim(1) == channels_ &&
                 images.dim(2) == height_ && images.dim(3) == width_,
             "cnn model: images must be (B, ", channels_, ", ", height_, ", ", width_, "), got ",
             images.shape().str());
  const Var f = stack_.forward(images);
  return classifier_.forward(reshape(f, Shape{images.dim(0), features_}), precision());
}

namespace {

std::unique_ptr<ImageClassifier> build(const ModelConfig& c, std::int64_t channels, Rng& rng,
                                       DType dtype) {
  return std::make_unique<CnnClassifier>(c, channels, rng, dtype);
}

}  // namespace

extern const ModelKindSpec kCnnSpec{ModelKind::cnn, RnnCell::gru, validate_cnn_config, nullptr,
                                    no_source_length, build};

}  // namespace heed
