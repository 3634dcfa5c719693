#include "heed/nn/embedding_layer.h"

#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;

TEST(EmbeddingModule, InitHasZeroPaddingRow) {
  Rng rng(1);
  Embedding emb(10, 4, 0, rng);
  auto params = emb.named_parameters();
  ASSERT_EQ(params.size(), 1u);
  EXPECT_EQ(params[0].first, "weight");
  EXPECT_EQ(emb.weight.shape(), Shape({10, 4}));
  for (int c = 0; c < 4; ++c) EXPECT_EQ(emb.weight.value().at({0, c}), 0.0);
  double sq = 0;
  for (double v : emb.weight.value().to_vector()) sq += v * v;
  EXPECT_GT(sq, 0.0);
  EXPECT_THROW(Embedding(10, 4, 10, rng), Error);
}

TEST(EmbeddingModule, ForwardLooksUpRows) {
  Rng rng(2);
  Embedding emb(5, 3, -1, rng, DType::f64);
  Var y = emb.forward({4, 2}, {2});
  EXPECT_EQ(y.shape(), Shape({2, 3}));
  for (int c = 0; c < 3; ++c) {
    EXPECT_EQ(y.value().at({0, c}), emb.weight.value().at({4, c}));
    EXPECT_EQ(y.value().at({1, c}), emb.weight.value().at({2, c}));
  }
}

TEST(EmbeddingModule, GradientCheckAndPaddingRowUntouched) {
  Rng rng(3);
  Embedding emb(6, 2, 0, rng, DType::f64);
  // Finite differences would see the padding row change the output (its zero gradient is a
  // rule, not a derivative), so the gradient check avoids it and the rule is checked below.
  std::vector<std::int32_t> real = {1, 2, 5, 1, 4, 3};
  EXPECT_TRUE(gradcheck([&] { return emb.forward(real, {2, 3}); }, {emb.weight}));
  std::vector<std::int32_t> ids = {1, 0, 5, 1, 0, 3};
  Tape::current().clear();
  emb.zero_grad();
  Var y = emb.forward(ids, {2, 3});
  Tape::current().backward(y, Tensor::full({2, 3, 2}, 1.0, DType::f64));
  EXPECT_TRUE(all_close(emb.weight.grad(),
                        Tensor::from({6, 2}, {0, 0, 2, 2, 0, 0, 1, 1, 0, 0, 1, 1}, DType::f64)));
}

}  // namespace
}  // namespace heed
