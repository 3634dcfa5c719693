#pragma once
// The fully connected image classifier (model.kind fc; docs/MODELS.md#fully-connected-classifier):
// every pixel at once, the baseline of the recurrent attention model's paper.
//
//   h_0 = flatten(x)                       (B, C * H * W)
//   h_i = ReLU(W_i h_{i-1} + b_i)          i = 1 .. model.fc_layers, model.fc_hidden wide
//   p(y | x) = softmax(W_c h_L + b_c)
#include <cstdint>
#include <memory>
#include <vector>

#include "heed/models/image_classifier.h"
#include "heed/nn/linear.h"

namespace heed {

class FcClassifier : public WholeImageClassifier {
 public:
  // Throws heed::Error naming the key unless the sizes are valid (validate_fc_config).
  FcClassifier(const ModelConfig& config, std::int64_t channels, Rng& rng,
               DType dtype = DType::f32);

  // Logits (B, classes) of images (B, C, H, W); the image must be model.image_height x
  // model.image_width.
  Var forward(const Var& images) const override;
  std::int64_t classes() const override { return classes_; }
  std::int64_t channels() const override { return channels_; }

 private:
  ImageClassifierConfig config_;
  std::int64_t classes_, channels_;
  std::vector<std::unique_ptr<Linear>> hidden_;  // hidden1 .. hiddenL
  std::unique_ptr<Linear> classifier_;
};

// Throws heed::Error naming the model key unless an fc model can be built: the image size,
// fc_layers from 0 to 16, fc_hidden from 1 to 65536, at least one class.
void validate_fc_config(const ModelConfig& config);

}  // namespace heed
