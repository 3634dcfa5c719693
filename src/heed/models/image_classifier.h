#pragma once
// ImageClassifier: what heed train and heed eval need of a model that gives an image one class
// (model.kind ram, fc, cnn; docs/MODELS.md). Each kind's registry entry builds one
// (ModelKindSpec::build_classifier); the trainer, the dev score and heed eval reach the kinds
// only through this interface.
//
// A training pass returns the logits and, for a model that chooses where to look (ram), what
// its location policy drew; the loss (train/ram_loss.h) is the cross-entropy of the logits
// plus the policy's terms, which are absent when nothing was drawn (fc, cnn, ram with
// random locations).
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/base/random.h"
#include "heed/data/idx_file.h"
#include "heed/models/compute_type.h"
#include "heed/models/model_config.h"
#include "heed/nn/module.h"

namespace heed {

// What one forward pass leaves: the classifier's logits and, per location l_t the policy chose
// (t = 1..T-1; none for fc and cnn), its log-probability and the baseline's prediction.
struct ClassifierOutput {
  Var logits;                      // (B, classes)
  std::vector<Var> log_prob;       // T - 1 entries, each (B); only when the policy drew them
  std::vector<Var> baseline;       // T - 1 entries, each (B)
  std::vector<Tensor> locations;   // T entries l_0..l_{T-1}, each (B, 2): where each glimpse looked
  std::vector<Tensor> samples;     // T - 1 entries: l_1..l_{T-1} as drawn, before the clamp
};

// What a model predicts at test time: the class probabilities (averaged over the paths of a
// model that looks along paths) and where each path looked (empty for fc and cnn).
struct ClassPrediction {
  Tensor probabilities;                    // (B, classes)
  std::vector<std::vector<Tensor>> paths;  // per path, l_0..l_{T-1}, each (B, 2)
};

class ImageClassifier : public Module {
 public:
  virtual std::int64_t classes() const = 0;
  virtual std::int64_t channels() const = 0;

  // The training pass over images (B, C, H, W), values in [0, 1]; rng draws whatever the model
  // samples (ram's locations). Its products run at compute_type().pass(training()).
  virtual ClassifierOutput forward_train(const Var& images, Rng& rng) const = 0;

  // Test time, without gradients. paths: ram's test-time paths (1: the mean locations; M > 1:
  // M sampled paths averaged); the other kinds ignore it. rng: ram's sampled or random
  // locations, unused otherwise.
  virtual ClassPrediction predict(const Var& images, std::int64_t paths, Rng& rng) const = 0;

  // The logits (B, classes) of one test-time pass (ram: the mean locations, or random ones
  // with model.random_locations; the locations are fixed by it, not differentiated), recorded
  // like a training pass so that pixel saliency (models/pixel_saliency.h) can differentiate
  // them with respect to the images.
  virtual Var test_logits(const Var& images, Rng& rng) const = 0;

  // How the products run (models/compute_type.h): set once by whoever builds the model (the
  // trainer, the benchmark); fp32 throughout until then.
  void set_compute_type(const ComputeType& type) { compute_type_ = type; }
  const ComputeType& compute_type() const { return compute_type_; }

 protected:
  // The precision of this pass's products: training's in training mode, fp32 otherwise.
  kernels::MatmulPrecision precision() const { return compute_type_.pass(training()); }

 private:
  ComputeType compute_type_;
};

// A classifier that reads the whole image at once (fc, cnn): logits from the pixels, nothing
// drawn; its prediction is softmax(logits), without paths.
class WholeImageClassifier : public ImageClassifier {
 public:
  // Logits (B, classes) of images (B, C, H, W).
  virtual Var forward(const Var& images) const = 0;
  ClassifierOutput forward_train(const Var& images, Rng& rng) const override;
  ClassPrediction predict(const Var& images, std::int64_t paths, Rng& rng) const override;
  Var test_logits(const Var& images, Rng& rng) const override;
};

// The registry entries' longest source: an image classifier reads no tokens (0 = any).
std::int64_t no_source_length(const ModelConfig& config);

// Throws heed::Error naming model.image_height or model.image_width unless both are from 1 to
// 4096 (the kinds that read every pixel; heed train fills them from the training images).
void validate_image_size(const ModelConfig& config);

// The classes of an image classifier: its target vocabulary (the class names of the training
// targets) without the vocabulary's special tokens; class c is target id c + kSpecials.
std::int64_t classifier_classes(const ModelConfig& config);

// The images members of a set as a classifier reads them: (B, 1, rows, cols), pixel / 255.
Tensor classifier_images(const IdxImages& images, std::span<const std::size_t> members,
                         DType dtype);

// The classifier config describes, for images of `channels` channels (and model.image_height x
// model.image_width pixels where the kind needs them), validated (validate_model_config) and
// initialised from rng. heed::Error for a kind that is no image classifier.
std::unique_ptr<ImageClassifier> make_image_classifier(const ModelConfig& config,
                                                       std::int64_t channels, Rng& rng,
                                                       DType dtype = DType::f32);

}  // namespace heed
