// An image classifier's training step cut into shares (train/classifier_shares.h): the share
// count, gradients equal to one pass over the whole batch (fc: nothing drawn) or to the
// shares' passes one after another with the documented generators (ram: sampled locations),
// replicas that follow the model's values as they change, the same gradients on a second run,
// and an error in a share reported as heed::Error.
#include "heed/train/classifier_shares.h"

#include <gtest/gtest.h>

#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/tape.h"
#include "heed/kernels/gemm.h"
#include "heed/models/model_registry.h"
#include "heed/tensor/arena.h"
#include "heed/train/ram_loss.h"
#include "support/gradcheck.h"
#include "support/tiny_models.h"

namespace heed {
namespace {

using testing::all_close;
using testing::random_tensor;

constexpr std::int64_t kImages = 40;

class ClassifierSharesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    before_ = kernels::num_threads();
    kernels::set_num_threads(2);
  }
  void TearDown() override { kernels::set_num_threads(before_); }

  // A tiny model of `kind` (f64) and a factory of more of its kind.
  void make(const std::string& kind) {
    config_ = testing::tiny_image_config(kind, 8, 8);
    Rng init(3);
    model_ = make_image_classifier(config_, 1, init, DType::f64);
    shares_ = std::make_unique<ClassifierShares>(*model_, [this] {
      Rng other(99);  // other initial values: the replica must not keep them
      return make_image_classifier(config_, 1, other, DType::f64);
    });
  }

  std::vector<Tensor> gradients() const {
    std::vector<Tensor> g;
    for (const Var& p : model_->parameters()) g.push_back(p.grad().clone());
    return g;
  }

  // One pass of the model over images[b0, b1) with generator rng, its loss weighted by its
  // share of the batch; the gradients accumulate into the model's.
  void pass(std::int64_t b0, std::int64_t b1, Rng& rng) {
    const Var x(images_.slice(0, b0, b1));
    const std::vector<std::int32_t> y(labels_.begin() + b0, labels_.begin() + b1);
    const RamLoss l = ram_loss(model_->forward_train(x, rng), y);
    Var total = scale(l.total, static_cast<double>(b1 - b0) / static_cast<double>(kImages));
    Tape::current().backward(total);
  }

  ModelConfig config_;
  std::unique_ptr<ImageClassifier> model_;
  std::unique_ptr<ClassifierShares> shares_;
  const Tensor images_ = random_tensor({kImages, 1, 8, 8}, 5, 0.0, 1.0);
  const std::vector<std::int32_t> labels_ = [] {
    std::vector<std::int32_t> y;
    for (std::int64_t i = 0; i < kImages; ++i) y.push_back(static_cast<std::int32_t>(i * 7 % 3));
    return y;
  }();
  int before_ = 1;
};

void expect_close(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    EXPECT_TRUE(all_close(a[i], b[i], 1e-13, 1e-11)) << "parameter " << i;
}

TEST(ClassifierShareCount, AtMostOnePerThreadAndSixteenImagesEach) {
  EXPECT_EQ(classifier_share_count(64, 1), 1);
  EXPECT_EQ(classifier_share_count(64, 2), 2);
  EXPECT_EQ(classifier_share_count(64, 8), 4);
  EXPECT_EQ(classifier_share_count(31, 2), 1);
  EXPECT_EQ(classifier_share_count(32, 2), 2);
  EXPECT_EQ(classifier_share_count(1, 2), 1);
  EXPECT_EQ(classifier_share_count(64, 0), 1);
}

TEST_F(ClassifierSharesTest, WholeImageModelGetsTheWholeBatchGradient) {
  for (const char* kind : {"fc", "cnn"}) {
    SCOPED_TRACE(kind);
    make(kind);
    Rng rng(1);
    model_->zero_grad();
    const double loss =
        shares_->forward_backward(images_, labels_, rng, 1.0)
            .classification;
    const std::vector<Tensor> split = gradients();
    model_->zero_grad();
    {
      Arena arena;
      ArenaScope scope(&arena);
      Rng unused(1);
      RamLoss l = ram_loss(
          model_->forward_train(Var(images_), unused), labels_);
      EXPECT_NEAR(loss, l.classification.value().item(), 1e-13);
      Tape::current().backward(l.total);
    }
    expect_close(split, gradients());
  }
}

TEST_F(ClassifierSharesTest, RamSharesDrawFromGeneratorsSeededByTheTrainingOne) {
  make("ram");
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    Rng rng(round + 11), copy = rng;
    model_->zero_grad();
    shares_->forward_backward(images_, labels_, rng, 1.0);
    const std::vector<Tensor> split = gradients();
    model_->zero_grad();
    {
      Arena arena;
      ArenaScope scope(&arena);
      Rng first(copy.next()), second(copy.next());
      pass(0, kImages / 2, first);
      pass(kImages / 2, kImages, second);
    }
    expect_close(split, gradients());
    EXPECT_EQ(rng.state(), copy.state()) << "the step draws one seed per share from the generator";
    // The replica reads the model's values: change them in place as an optimiser does.
    for (const Var& p : model_->parameters()) {
      Tensor& v = p.mutable_value();
      double* d = v.data<double>();
      for (std::int64_t i = 0; i < v.numel(); ++i) d[i] = d[i] * 0.5 + 0.01;
    }
  }
}

TEST_F(ClassifierSharesTest, SameSeedSameGradients) {
  make("ram");
  std::vector<std::vector<Tensor>> runs;
  for (int run = 0; run < 2; ++run) {
    Rng rng(7);
    model_->zero_grad();
    shares_->forward_backward(images_, labels_, rng, 1.0);
    runs.push_back(gradients());
  }
  for (std::size_t i = 0; i < runs[0].size(); ++i)
    EXPECT_EQ(runs[0][i].to_vector(), runs[1][i].to_vector()) << "parameter " << i;
}

TEST_F(ClassifierSharesTest, AnErrorInAShareIsReported) {
  make("fc");
  std::vector<std::int32_t> bad = labels_;
  bad.back() = 3;  // share 1's last image: a class the model does not have
  Rng rng(1);
  EXPECT_THROW(
      shares_->forward_backward(images_, bad, rng, 1.0), Error);
  std::vector<std::int32_t> fewer(labels_.begin(), labels_.end() - 1);
  EXPECT_THROW(
      shares_->forward_backward(images_, fewer, rng, 1.0), Error);
}

}  // namespace
}  // namespace heed
