// The loss of the fully connected and convolutional image classifiers (train/ram_loss.h with
// nothing drawn: the cross-entropy alone), gradient-checked in double precision against
// every parameter of each model.
#include <gtest/gtest.h>

#include "heed/models/cnn_classifier.h"
#include "heed/models/fc_classifier.h"
#include "heed/train/ram_loss.h"
#include "support/gradcheck.h"
#include "support/tiny_models.h"

namespace heed {
namespace {

using testing::gradcheck;

const std::vector<std::int32_t> kLabels{2, 0, 1};

ModelConfig tiny(const char* kind) { return testing::tiny_image_config(kind, 6, 5); }

void check_loss_gradient(const ImageClassifier& model) {
  const Var x(testing::random_tensor({3, 1, 6, 5}, 11, 0.0, 1.0));
  Rng unused(1);
  auto loss = [&] {
    const ClassifierOutput out = model.forward_train(x, unused);
    const RamLoss l = ram_loss(out, kLabels);
    EXPECT_FALSE(l.reinforce.defined());  // nothing drawn: no policy terms
    return l.total;
  };
  EXPECT_TRUE(gradcheck(loss, model.parameters()));
}

TEST(ImageClassifierLoss, FcGradientsMatchFiniteDifferences) {
  Rng init(3);
  check_loss_gradient(FcClassifier(tiny("fc"), 1, init, DType::f64));
}

TEST(ImageClassifierLoss, CnnGradientsMatchFiniteDifferences) {
  Rng init(3);
  check_loss_gradient(CnnClassifier(tiny("cnn"), 1, init, DType::f64));
}

TEST(ImageClassifierLoss, IsTheCrossEntropyAlone) {
  Rng init(3), unused(1);
  FcClassifier m(tiny("fc"), 1, init, DType::f64);
  const Var x(testing::random_tensor({3, 1, 6, 5}, 11, 0.0, 1.0));
  const RamLoss l = ram_loss(m.forward_train(x, unused), kLabels);
  EXPECT_EQ(l.total.value().item(), l.classification.value().item());
}

}  // namespace
}  // namespace heed
