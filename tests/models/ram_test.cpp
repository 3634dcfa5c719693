// The recurrent attention model (models/ram.h): shapes, parameter names, where the glimpses
// look (the centre first, then the policy's clamped choices), repeatable draws, the mean
// path, and the checks of its configuration.
#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "heed/models/model_registry.h"
#include "heed/models/ram.h"
#include "support/gradcheck.h"
#include "support/tiny_models.h"

namespace heed {
namespace {

RamConfig small() { return testing::small_ram_config(); }

Var images(std::int64_t B) { return Var(testing::random_tensor({B, 1, 12, 12}, 3, 0.0, 1.0)); }

TEST(Ram, ShapesAndLocations) {
  for (RamCore core : {RamCore::rnn, RamCore::lstm}) {
    RamConfig c = small();
    c.core = core;
    Rng init(1), draws(2);
    RecurrentAttentionModel m(c, 5, 1, init, DType::f64);
    NoGradGuard no_grad;
    RamOutput out = m.forward(images(3), RamLocations::sample, &draws);
    EXPECT_EQ(out.logits.shape(), (Shape{3, 5}));
    ASSERT_EQ(out.locations.size(), 4u);
    ASSERT_EQ(out.log_prob.size(), 3u);
    ASSERT_EQ(out.baseline.size(), 3u);
    ASSERT_EQ(out.samples.size(), 3u);
    for (double v : out.locations[0].to_vector()) EXPECT_EQ(v, 0.0);  // l_0: the centre
    for (std::size_t t = 1; t < 4; ++t) {
      const std::vector<double> l = out.locations[t].to_vector(), s = out.samples[t - 1].to_vector();
      for (std::size_t i = 0; i < l.size(); ++i) EXPECT_EQ(l[i], std::clamp(s[i], -1.0, 1.0));
    }
    EXPECT_EQ(out.baseline[0].shape(), (Shape{3}));
  }
}

TEST(Ram, ParameterNames) {
  Rng init(1);
  RecurrentAttentionModel m(small(), 5, 1, init);
  std::vector<std::string> names;
  for (const auto& [name, p] : m.named_parameters()) names.push_back(name);
  const std::vector<std::string> expected{
      "glimpse.patches.weight", "glimpse.patches.bias", "glimpse.location.weight",
      "glimpse.location.bias",  "glimpse.what.weight",  "glimpse.what.bias",
      "glimpse.where.weight",   "glimpse.where.bias",   "core.weight_ih",
      "core.weight_hh",         "core.bias_ih",         "core.bias_hh",
      "location.weight",        "location.bias",        "baseline.weight",
      "baseline.bias",          "classifier.weight",    "classifier.bias"};
  EXPECT_EQ(names, expected);
  EXPECT_EQ(m.parameter("glimpse.patches.weight").shape(), (Shape{6, 2 * 4 * 4}));
  RamConfig lstm = small();
  lstm.core = RamCore::lstm;
  RecurrentAttentionModel l(lstm, 5, 1, init);
  EXPECT_EQ(l.parameter("core.weight_ih").shape(), (Shape{32, 7}));
}

TEST(Ram, SameSeedSameDrawsAndTheMeanPathHasNoDraws) {
  Rng init(4);
  RecurrentAttentionModel m(small(), 5, 1, init, DType::f64);
  NoGradGuard no_grad;
  Rng a(9), b(9);
  RamOutput x = m.forward(images(2), RamLocations::sample, &a);
  RamOutput y = m.forward(images(2), RamLocations::sample, &b);
  for (std::size_t t = 0; t < x.locations.size(); ++t)
    EXPECT_EQ(x.locations[t].to_vector(), y.locations[t].to_vector());
  RamOutput mean = m.forward(images(2), RamLocations::mean);
  EXPECT_TRUE(mean.log_prob.empty());
  RamOutput again = m.forward(images(2), RamLocations::mean);
  EXPECT_EQ(mean.logits.value().to_vector(), again.logits.value().to_vector());
}

TEST(Ram, RefusesBadConfigurations) {
  Rng init(1);
  auto refuses = [&](auto change, const char* words) {
    RamConfig c = small();
    change(c);
    try {
      RecurrentAttentionModel m(c, 5, 1, init);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    }
  };
  refuses([](RamConfig& c) { c.glimpses = 0; }, "model.glimpses");
  refuses([](RamConfig& c) { c.location_std = 0; }, "model.location_std");
  refuses([](RamConfig& c) { c.scales = 9; }, "model.scales");
  refuses([](RamConfig& c) { c.glimpse_size = 1024, c.scales = 4; }, "largest patch");
  RecurrentAttentionModel m(small(), 5, 1, init);
  NoGradGuard no_grad;
  EXPECT_THROW(m.forward(images(2), RamLocations::sample), Error);  // no generator
  EXPECT_THROW(m.forward(Var(Tensor::zeros({2, 3, 8, 8})), RamLocations::mean), Error);
}

TEST(Ram, RegistryKnowsItReadsImages) {
  EXPECT_TRUE(classifies_images(ModelKind::ram));
  EXPECT_FALSE(classifies_images(ModelKind::bahdanau));
  ModelConfig c;
  c.kind = ModelKind::ram;
  c.tgt_vocab = 14;  // 10 classes
  EXPECT_NO_THROW(validate_model_config(c));
  EXPECT_EQ(ram_classes(c), 10);
  Rng rng(1);
  EXPECT_THROW(make_model(c, rng), Error);
  c.ram.sample_paths = 0;
  EXPECT_THROW(validate_model_config(c), Error);
}

}  // namespace
}  // namespace heed
