// The fully connected image classifier (docs/MODELS.md#fully-connected-classifier); the
// equations are in fc_classifier.h. Registered as model.kind fc.
#include "heed/models/fc_classifier.h"

#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/index.h"
#include "heed/base/error.h"
#include "heed/models/model_registry.h"

namespace heed {

void validate_fc_config(const ModelConfig& c) {
  HEED_CHECK(classifier_classes(c) >= 1, "model: an fc model needs at least one class, got ",
             classifier_classes(c));
  validate_image_size(c);
  HEED_CHECK(c.classifier.fc_layers >= 0 && c.classifier.fc_layers <= 16,
             "model.fc_layers must be from 0 to 16, got ", c.classifier.fc_layers);
  HEED_CHECK(c.classifier.fc_hidden >= 1 && c.classifier.fc_hidden <= 65536,
             "model.fc_hidden must be from 1 to 65536, got ", c.classifier.fc_hidden);
}

FcClassifier::FcClassifier(const ModelConfig& config, std::int64_t channels, Rng& rng,
                           DType dtype)
    : config_((validate_fc_config(config), config.classifier)), classes_(classifier_classes(config)),
      channels_(channels) {
  HEED_CHECK(channels >= 1, "the fc model needs images of at least one channel");
  std::int64_t in = channels * config_.image_height * config_.image_width;
  for (std::int64_t i = 0; i < config_.fc_layers; ++i) {
    hidden_.push_back(std::make_unique<Linear>(in, config_.fc_hidden, true, rng, dtype));
    register_module("hidden" + std::to_string(i + 1), *hidden_.back());
    in = config_.fc_hidden;
  }
  classifier_ = std::make_unique<Linear>(in, classes_, true, rng, dtype);
  register_module("classifier", *classifier_);
}

Var FcClassifier::forward(const Var& images) const {
  HEED_CHECK(images.value().ndim() == 4 && images.dim(1) == channels_ &&
                 images.dim(2) == config_.image_height && images.dim(3) == config_.image_width,
             "fc model: images must be (B, ", channels_, ", ", config_.image_height, ", ",
             config_.image_width, "), got ", images.shape().str());
  Var h = reshape(images, Shape{images.dim(0), channels_ * config_.image_height * config_.image_width});
  const kernels::MatmulPrecision p = precision();
  for (const auto& layer : hidden_) h = relu(layer->forward(h, p));
  return classifier_->forward(h, p);
}

namespace {

std::unique_ptr<ImageClassifier> build(const ModelConfig& c, std::int64_t channels, Rng& rng,
                                       DType dtype) {
  return std::make_unique<FcClassifier>(c, channels, rng, dtype);
}

}  // namespace

extern const ModelKindSpec kFcSpec{ModelKind::fc, RnnCell::gru, validate_fc_config, nullptr,
                                   no_source_length, build};

}  // namespace heed
