#include "heed/autograd/embedding_op.h"

#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

TEST(Embedding, ForwardGathersRows) {
  Var w(Tensor::from({3, 2}, {0, 0, 1, 2, 3, 4}));
  Var y = embedding(w, {2, 1, 1, 0}, {2, 2});
  EXPECT_EQ(y.shape(), Shape({2, 2, 2}));
  EXPECT_TRUE(all_close(y.value(), Tensor::from({2, 2, 2}, {3, 4, 1, 2, 1, 2, 0, 0})));
}

TEST(Embedding, GradientCheckWithRepeatedIds) {
  Var w = random_var({5, 3}, 1);
  std::vector<std::int32_t> ids = {4, 1, 1, 0, 4, 2};
  EXPECT_TRUE(gradcheck([&] { return embedding(w, ids, {3, 2}); }, {w}));
}

TEST(Embedding, PaddingRowGetsNoGradient) {
  Var w = random_var({4, 2}, 2);
  Tape::current().clear();
  Var y = embedding(w, {0, 3, 0, 1}, {4}, /*padding_idx=*/0);
  Tape::current().backward(y, Tensor::full({4, 2}, 1.0, DType::f64));
  EXPECT_TRUE(all_close(w.grad(), Tensor::from({4, 2}, {0, 0, 1, 1, 0, 0, 1, 1}, DType::f64)));
}

TEST(Embedding, RejectsBadIds) {
  Var w = random_var({4, 2}, 3);
  EXPECT_THROW(embedding(w, {0, 4}, {2}), Error);
  EXPECT_THROW(embedding(w, {-1}, {1}), Error);
  EXPECT_THROW(embedding(w, {0, 1, 2}, {2}), Error);
}

}  // namespace
}  // namespace heed
