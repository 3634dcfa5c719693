// Pixel saliency of the image classifiers (models/pixel_saliency.h): against central
// differences of the class logit in double precision for every kind (ram's locations are
// whole pixels, so a small step moves no patch and the difference sees the fixed-location
// gradient), zero where no glimpse reads, and the refusals.
#include "heed/models/pixel_saliency.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/models/image_classifier.h"
#include "support/gradcheck.h"
#include "support/tiny_models.h"

namespace heed {
namespace {

constexpr std::int64_t kB = 2, kH = 12, kW = 10;

// The tiny configurations, ram's a little wider: with three hidden units its ReLUs can all be
// dead at initialisation, and then nothing depends on the pixels.
std::unique_ptr<ImageClassifier> tiny(const std::string& kind) {
  Rng init(7);
  ModelConfig c = testing::tiny_image_config(kind, kH, kW);
  c.ram.glimpse_hidden = c.ram.glimpse_dim = c.ram.core_hidden = 8;
  return make_image_classifier(c, 1, init, DType::f64);
}

double logit(const ImageClassifier& m, const Tensor& images, std::int64_t b, std::int32_t c) {
  NoGradGuard no_grad;
  Rng unused(1);
  return m.test_logits(Var(images), unused).value().at({b, c});
}

class PixelSaliency : public ::testing::TestWithParam<std::string> {};

TEST_P(PixelSaliency, IsTheAbsoluteDerivativeOfTheClassLogit) {
  const auto m = tiny(GetParam());
  const Tensor x = testing::random_tensor({kB, 1, kH, kW}, 3, 0.0, 1.0);
  const std::vector<std::int32_t> classes = {2, 0};
  Rng rng(1);
  const std::vector<std::vector<float>> s = pixel_saliency(*m, x, classes, rng);
  ASSERT_EQ(s.size(), static_cast<std::size_t>(kB));
  double largest = 0;
  for (std::int64_t b = 0; b < kB; ++b) {
    ASSERT_EQ(s[static_cast<std::size_t>(b)].size(), static_cast<std::size_t>(kH * kW));
    for (std::int64_t p = 0; p < kH * kW; ++p) {
      constexpr double h = 1e-6;
      Tensor plus = x.clone(), minus = x.clone();
      const double v = x.at({b, 0, p / kW, p % kW});
      plus.set({b, 0, p / kW, p % kW}, v + h);
      minus.set({b, 0, p / kW, p % kW}, v - h);
      const std::int32_t c = classes[static_cast<std::size_t>(b)];
      const double numeric = std::fabs((logit(*m, plus, b, c) - logit(*m, minus, b, c)) / (2 * h));
      const double got = s[static_cast<std::size_t>(b)][static_cast<std::size_t>(p)];
      EXPECT_NEAR(got, numeric, 1e-5 * (1 + numeric)) << GetParam() << " image " << b << " pixel " << p;
      largest = std::max(largest, got);
    }
  }
  EXPECT_GT(largest, 0.0) << "no pixel moved the score";
  for (const Var& p : m->parameters()) EXPECT_FALSE(p.has_grad()) << "parameter gradients left behind";
}

INSTANTIATE_TEST_SUITE_P(EveryKind, PixelSaliency, ::testing::Values("fc", "cnn", "ram"));

TEST(PixelSaliencyRam, PixelsNoGlimpseReadsHaveNone) {
  // Three glimpses of 2 and 4 pixels on a 12x10 image cannot cover it: some pixels are never
  // read along the mean path, and their saliency is exactly 0.
  const auto m = tiny("ram");
  const Tensor x = testing::random_tensor({1, 1, kH, kW}, 5, 0.0, 1.0);
  Rng rng(1);
  const std::vector<float> s = pixel_saliency(*m, x, std::vector<std::int32_t>{1}, rng).front();
  std::size_t zero = 0;
  for (const float v : s) zero += v == 0.0f;
  EXPECT_GE(zero, s.size() / 2) << "at most 3 x (4x4) of the 120 pixels are read";
  EXPECT_LT(zero, s.size());
}

TEST(PixelSaliencyRefusals, BadClassesCountsAndNoGradients) {
  const auto m = tiny("fc");
  const Tensor x = testing::random_tensor({kB, 1, kH, kW}, 3, 0.0, 1.0);
  Rng rng(1);
  EXPECT_THROW(pixel_saliency(*m, x, std::vector<std::int32_t>{0}, rng), Error);      // one class for two images
  EXPECT_THROW(pixel_saliency(*m, x, std::vector<std::int32_t>{0, 3}, rng), Error);   // 3 classes: 0..2
  EXPECT_THROW(pixel_saliency(*m, x, std::vector<std::int32_t>{0, -1}, rng), Error);
  NoGradGuard no_grad;
  EXPECT_THROW(pixel_saliency(*m, x, std::vector<std::int32_t>{0, 1}, rng), Error);
}

}  // namespace
}  // namespace heed
