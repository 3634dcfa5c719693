#pragma once
// The recurrent attention model (docs/MODELS.md#recurrent-attention-model; Mnih et al. 2014,
// "Recurrent Models of Visual Attention"): a classifier that looks at an image through T
// glimpses, each centred where the previous core state's location policy chose.
//
//   glimpse network  h_g = ReLU(W_rho rho(x, l_{t-1}) + b_rho),  h_l = ReLU(W_loc l_{t-1} + b_loc),
//                    g_t = ReLU(W_what h_g + b_what + W_where h_l + b_where)
//   core             h_t = ReLU(W_ih g_t + b_ih + W_hh h_{t-1} + b_hh)   (core: rnn)
//                    or an LSTM cell over g_t                            (core: lstm)
//   location policy  mu_t = tanh(W_mu stopgrad(h_t) + b_mu),  l_t ~ N(mu_t, sigma^2 I)
//   baseline         b_t = w_b . stopgrad(h_t) + c_b
//   classifier       p(y | x) = softmax(W_c h_T + b_c)
//
// l_0 = (0, 0), the image's centre; l_1..l_{T-1} are drawn (training) or taken at the mean
// (test), and clamped to [-1, 1] before the sensor reads them. With model.random_locations
// (the paper's ablation) they are uniform in [-1, 1]^2 in training and at test time, and the
// policy and the baseline are not used. The draws are plain tensors:
// no gradient flows through a location into the glimpse network or the core, and the policy
// and the baseline read the core state detached, so each is trained by its own term of the
// loss only (train/ram_loss.h).
#include <cstdint>
#include <span>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/base/random.h"
#include "heed/data/idx_file.h"
#include "heed/models/image_classifier.h"
#include "heed/models/model_config.h"
#include "heed/nn/linear.h"
#include "heed/nn/module.h"

namespace heed {

// How a forward pass picks l_1..l_{T-1}.
enum class RamLocations {
  sample,  // l_t ~ N(mu_t, sigma^2 I) from the generator passed in (training; test paths)
  mean,    // l_t = mu_t (test time with one path)
  given,   // the locations passed in (gradient checks: the sample fixed)
  random,  // uniform in [-1, 1]^2 from the generator passed in, no policy (the ablation)
};

// One forward pass: the logits and, per chosen location l_t (t = 1..T-1), its
// log-probability under the policy and the baseline's prediction (only with
// RamLocations::sample or given; none with random).
using RamOutput = ClassifierOutput;
// Test time: the classifier's softmax, averaged over the paths, and where each path looked.
using RamPrediction = ClassPrediction;

class RecurrentAttentionModel : public ImageClassifier {
 public:
  // classes: the classifier's outputs. Throws heed::Error unless the sizes are valid
  // (validate_ram_config).
  RecurrentAttentionModel(const RamConfig& config, std::int64_t classes, std::int64_t channels,
                          Rng& rng, DType dtype = DType::f32);

  // images (B, C, H, W), values in [0, 1]. rng: required for RamLocations::sample and random;
  // given: l_1..l_{T-1} for RamLocations::given (T - 1 tensors of (B, 2)).
  RamOutput forward(const Var& images, RamLocations how, Rng* rng = nullptr,
                    const std::vector<Tensor>* given = nullptr) const;

  // Training: sampled locations, or random ones with model.random_locations.
  ClassifierOutput forward_train(const Var& images, Rng& rng) const override;

  // Test time, without gradients: paths = 1 follows the mean locations mu_t (rng unused);
  // paths = M > 1 draws M paths from rng and averages their class probabilities. With
  // model.random_locations every path is random, drawn from rng.
  RamPrediction predict(const Var& images, std::int64_t paths, Rng& rng) const override;
  // One path's logits: the mean locations (random ones with model.random_locations, from rng).
  Var test_logits(const Var& images, Rng& rng) const override;

  const RamConfig& config() const { return config_; }
  std::int64_t classes() const override { return classes_; }
  std::int64_t channels() const override { return channels_; }

  // The parts, by the names the checkpoint uses (glimpse.*, core.*, location.*, baseline.*,
  // classifier.*), for the tests that check which part a loss term trains.
  std::vector<Var> glimpse_parameters() const;
  std::vector<Var> core_parameters() const;
  std::vector<Var> location_parameters() const;
  std::vector<Var> baseline_parameters() const;
  std::vector<Var> classifier_parameters() const;

 private:
  struct GlimpseNetwork : Module {
    GlimpseNetwork(const RamConfig& c, std::int64_t channels, Rng& rng, DType dtype);
    Linear patches, location, what, where;
  };
  struct Core : Module {
    Core(const RamConfig& c, Rng& rng, DType dtype);
    Var weight_ih, weight_hh, bias_ih, bias_hh;  // PyTorch's RNNCell / LSTMCell names
  };

  RamConfig config_;
  std::int64_t classes_, channels_;
  GlimpseNetwork glimpse_;
  Core core_;
  Linear location_, baseline_, classifier_;
};

// Throws heed::Error naming the model key unless a model can be built (positive sizes, the
// largest patch no wider than 4096 pixels, location_std in (0, 1], at least one class).
void validate_ram_config(const RamConfig& config, std::int64_t classes);

// The images members of a set as the model reads them (classifier_images).
inline Tensor ram_images(const IdxImages& images, std::span<const std::size_t> members,
                         DType dtype) {
  return classifier_images(images, members, dtype);
}

// The classes of model.kind ram (classifier_classes).
inline std::int64_t ram_classes(const ModelConfig& config) { return classifier_classes(config); }

}  // namespace heed
