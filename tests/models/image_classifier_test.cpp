// The image classifiers (models/image_classifier.h): the fully connected and convolutional
// kinds' shapes, parameter names and configuration errors, the registry's builder, and the
// recurrent attention model's random-location ablation (its draws stay in range and its
// policy and baseline play no part).
#include <gtest/gtest.h>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/tape.h"
#include "heed/models/cnn_classifier.h"
#include "heed/models/fc_classifier.h"
#include "heed/models/model_registry.h"
#include "heed/models/ram.h"
#include "heed/nn/conv_stack.h"
#include "support/gradcheck.h"
#include "support/tiny_models.h"

namespace heed {
namespace {

// 3 classes of 12x10 images.
ModelConfig image_config(ModelKind kind) {
  return testing::tiny_image_config(std::string(enum_name(kind)), 12, 10);
}

Var images(std::int64_t B, std::int64_t H = 12, std::int64_t W = 10) {
  return Var(testing::random_tensor({B, 1, H, W}, 3, 0.0, 1.0));
}

std::vector<std::string> names_of(const Module& m) {
  std::vector<std::string> names;
  for (const auto& [name, p] : m.named_parameters()) names.push_back(name);
  return names;
}

TEST(FcClassifier, ShapesAndParameters) {
  Rng init(1), unused(2);
  FcClassifier m(image_config(ModelKind::fc), 1, init, DType::f64);
  EXPECT_EQ(names_of(m), (std::vector<std::string>{"hidden1.weight", "hidden1.bias",
                                                   "hidden2.weight", "hidden2.bias",
                                                   "classifier.weight", "classifier.bias"}));
  EXPECT_EQ(m.parameter("hidden1.weight").shape(), (Shape{3, 120}));
  EXPECT_EQ(m.parameter("classifier.weight").shape(), (Shape{3, 3}));
  EXPECT_EQ(m.classes(), 3);
  const ClassifierOutput out = m.forward_train(images(4), unused);
  EXPECT_EQ(out.logits.shape(), (Shape{4, 3}));
  EXPECT_TRUE(out.log_prob.empty() && out.baseline.empty() && out.locations.empty());
  const ClassPrediction p = m.predict(images(4), 1, unused);
  EXPECT_EQ(p.probabilities.shape(), (Shape{4, 3}));
  EXPECT_TRUE(p.paths.empty());
  const std::vector<double> probs = p.probabilities.to_vector();
  for (int b = 0; b < 4; ++b) EXPECT_NEAR(probs[b * 3] + probs[b * 3 + 1] + probs[b * 3 + 2], 1.0, 1e-12);
  ModelConfig linear = image_config(ModelKind::fc);
  linear.classifier.fc_layers = 0;  // a linear classifier over the pixels
  FcClassifier l(linear, 1, init);
  EXPECT_EQ(names_of(l), (std::vector<std::string>{"classifier.weight", "classifier.bias"}));
  NoGradGuard no_grad;
  EXPECT_THROW(m.forward(images(2, 10, 12)), Error);  // another image size
}

TEST(CnnClassifier, ShapesAndParameters) {
  Rng init(1), unused(2);
  CnnClassifier m(image_config(ModelKind::cnn), 1, init, DType::f64);
  EXPECT_EQ(names_of(m), (std::vector<std::string>{"features.conv0.weight", "features.conv0.bias",
                                                   "features.conv1.weight", "features.conv1.bias",
                                                   "classifier.weight", "classifier.bias"}));
  EXPECT_EQ(m.parameter("features.conv0.weight").shape(), (Shape{2, 1, 3, 3}));
  EXPECT_EQ(m.parameter("features.conv1.weight").shape(), (Shape{4, 2, 3, 3}));
  // 12x10 -> 6x5 -> 3x2, 4 channels.
  EXPECT_EQ(m.parameter("classifier.weight").shape(), (Shape{3, 4 * 3 * 2}));
  const ClassifierOutput out = m.forward_train(images(4), unused);
  EXPECT_EQ(out.logits.shape(), (Shape{4, 3}));
  EXPECT_EQ(m.predict(images(4), 1, unused).probabilities.shape(), (Shape{4, 3}));
}

TEST(ConvStack, HalvesTheSideAndDoublesTheChannels) {
  EXPECT_EQ(conv_stack_output(3, 16, 60, 60), (std::array<std::int64_t, 3>{64, 7, 7}));
  EXPECT_THROW(conv_stack_output(3, 16, 7, 60), Error);
  Rng init(1);
  ConvStack s(1, 3, 2, init, DType::f64);
  NoGradGuard no_grad;
  EXPECT_EQ(s.forward(images(2, 20, 17)).shape(), (Shape{2, 8, 2, 2}));
}

// Each configuration error names its key.
TEST(ImageClassifiers, RefuseBadConfigurationsNamingTheKey) {
  auto refuses = [](ModelKind kind, auto change, const char* key) {
    ModelConfig c = image_config(kind);
    change(c);
    try {
      validate_model_config(c);
      ADD_FAILURE() << "accepted: " << key;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  refuses(ModelKind::fc, [](ModelConfig& c) { c.classifier.fc_hidden = 0; }, "model.fc_hidden");
  refuses(ModelKind::fc, [](ModelConfig& c) { c.classifier.fc_layers = 17; }, "model.fc_layers");
  refuses(ModelKind::fc, [](ModelConfig& c) { c.classifier.image_height = 0; }, "model.image_height");
  refuses(ModelKind::cnn, [](ModelConfig& c) { c.classifier.image_width = 0; }, "model.image_width");
  refuses(ModelKind::cnn, [](ModelConfig& c) { c.image.conv_layers = 0; }, "model.conv_layers");
  refuses(ModelKind::cnn, [](ModelConfig& c) { c.image.conv_layers = 4; }, "model.conv_layers");
  refuses(ModelKind::cnn, [](ModelConfig& c) { c.image.conv_channels = 0; }, "model.conv_channels");
}

TEST(ImageClassifiers, TheRegistryBuildsEachKind) {
  for (ModelKind kind : {ModelKind::ram, ModelKind::fc, ModelKind::cnn}) {
    EXPECT_TRUE(classifies_images(kind));
    EXPECT_EQ(model_kind_spec(kind).build, nullptr);  // no encoder–decoder
    Rng init(1);
    const ModelConfig c = image_config(kind);
    const std::unique_ptr<ImageClassifier> m = make_image_classifier(c, 1, init, DType::f64);
    EXPECT_EQ(m->classes(), 3);
    Rng draws(3);
    NoGradGuard no_grad;
    EXPECT_EQ(m->predict(images(2), 1, draws).probabilities.shape(), (Shape{2, 3}));
    EXPECT_THROW(make_model(c, init), Error);  // no encoder-decoder
  }
  EXPECT_FALSE(classifies_images(ModelKind::luong));
  Rng init(1);
  ModelConfig text;
  text.src_vocab = text.tgt_vocab = 10;
  EXPECT_THROW(make_image_classifier(text, 1, init), Error);
}

RamConfig small_ram() {
  RamConfig c = testing::small_ram_config();
  c.random_locations = true;
  return c;
}

TEST(RamRandomLocations, DrawsUniformlyInRangeWithoutThePolicy) {
  Rng init(1);
  RecurrentAttentionModel m(small_ram(), 3, 1, init, DType::f64);
  Rng draws(5);
  const ClassifierOutput out = m.forward_train(images(64, 12, 12), draws);
  EXPECT_TRUE(out.log_prob.empty());  // no policy term
  EXPECT_TRUE(out.baseline.empty());  // no baseline term
  ASSERT_EQ(out.locations.size(), 4u);
  for (double v : out.locations[0].to_vector()) EXPECT_EQ(v, 0.0);  // l_0: the centre
  double lo = 1, hi = -1, sum = 0;
  std::size_t n = 0;
  for (std::size_t t = 1; t < 4; ++t)
    for (double v : out.locations[t].to_vector()) {
      EXPECT_GE(v, -1.0);
      EXPECT_LE(v, 1.0);
      lo = std::min(lo, v), hi = std::max(hi, v), sum += v, ++n;
    }
  EXPECT_LT(lo, -0.9);  // spread over the whole range, centred
  EXPECT_GT(hi, 0.9);
  EXPECT_NEAR(sum / static_cast<double>(n), 0.0, 0.1);
  // The policy and the baseline get no gradient from the loss (the cross-entropy alone).
  m.zero_grad();
  std::vector<std::int32_t> labels(64, 1);
  Var loss = cross_entropy(out.logits, labels);
  Tape::current().backward(loss);
  for (const Var& p : m.location_parameters())
    for (double g : p.grad().to_vector()) EXPECT_EQ(g, 0.0);
  for (const Var& p : m.baseline_parameters())
    for (double g : p.grad().to_vector()) EXPECT_EQ(g, 0.0);
}

TEST(RamRandomLocations, IgnoreThePolicyAndRepeatWithTheSeed) {
  Rng init(1);
  RecurrentAttentionModel m(small_ram(), 3, 1, init, DType::f64);
  NoGradGuard no_grad;
  Rng a(9);
  const ClassPrediction before = m.predict(images(3, 12, 12), 1, a);
  ASSERT_EQ(before.paths.size(), 1u);
  // Another policy changes nothing: the locations come from the generator alone.
  for (const Var& p : m.location_parameters()) p.mutable_value().fill(0.7);
  Rng b(9);
  const ClassPrediction after = m.predict(images(3, 12, 12), 1, b);
  EXPECT_EQ(before.probabilities.to_vector(), after.probabilities.to_vector());
  for (std::size_t t = 0; t < before.paths[0].size(); ++t)
    EXPECT_EQ(before.paths[0][t].to_vector(), after.paths[0][t].to_vector());
  // Not the mean path: the second glimpse is somewhere other than where the policy points.
  Rng c(10);
  EXPECT_NE(m.predict(images(3, 12, 12), 1, c).paths[0][1].to_vector(), before.paths[0][1].to_vector());
}

}  // namespace
}  // namespace heed
