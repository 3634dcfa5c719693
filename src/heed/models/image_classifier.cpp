#include "heed/models/image_classifier.h"

#include "heed/autograd/softmax_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/data/vocabulary.h"

namespace heed {

std::int64_t classifier_classes(const ModelConfig& config) {
  return config.tgt_vocab - Vocabulary::kSpecials;
}

ClassifierOutput WholeImageClassifier::forward_train(const Var& images, Rng&) const {
  ClassifierOutput out;
  out.logits = forward(images);
  return out;
}

ClassPrediction WholeImageClassifier::predict(const Var& images, std::int64_t, Rng&) const {
  NoGradGuard no_grad;
  ClassPrediction p;
  p.probabilities = softmax(forward(images)).value().clone();
  return p;
}

Var WholeImageClassifier::test_logits(const Var& images, Rng&) const { return forward(images); }

std::int64_t no_source_length(const ModelConfig&) { return 0; }

void validate_image_size(const ModelConfig& c) {
  HEED_CHECK(c.classifier.image_height >= 1 && c.classifier.image_height <= 4096,
             "model.image_height must be from 1 to 4096 (heed train sets it from the training "
             "images), got ", c.classifier.image_height);
  HEED_CHECK(c.classifier.image_width >= 1 && c.classifier.image_width <= 4096,
             "model.image_width must be from 1 to 4096 (heed train sets it from the training "
             "images), got ", c.classifier.image_width);
}

Tensor classifier_images(const IdxImages& images, std::span<const std::size_t> members,
                         DType dtype) {
  const auto B = static_cast<std::int64_t>(members.size());
  const std::int64_t size = images.image_size();
  std::vector<double> v(static_cast<std::size_t>(B * size));
  for (std::int64_t b = 0; b < B; ++b) {
    const std::size_t i = members[static_cast<std::size_t>(b)];
    HEED_CHECK(static_cast<std::int64_t>(i) < images.count, "classifier_images: image ", i, " of ",
               images.count);
    const std::uint8_t* px = images.image(static_cast<std::int64_t>(i));
    for (std::int64_t k = 0; k < size; ++k)
      v[static_cast<std::size_t>(b * size + k)] = static_cast<double>(px[k]) / 255.0;
  }
  return Tensor::from(Shape{B, 1, images.rows, images.cols}, v, dtype);
}

}  // namespace heed
