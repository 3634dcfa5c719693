#include "heed/autograd/index.h"

#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

TEST(Index, ForwardMatchesHandComputation) {
  Var x(Tensor::from({3, 2}, {1, 2, 3, 4, 5, 6}));
  EXPECT_TRUE(all_close(select_time(x, 1).value(), Tensor::from({2}, {3, 4})));
  EXPECT_TRUE(all_close(select(x, 1, 1).value(), Tensor::from({3}, {2, 4, 6})));
  EXPECT_TRUE(all_close(slice(x, 0, 1, 3).value(), Tensor::from({2, 2}, {3, 4, 5, 6})));
  EXPECT_TRUE(all_close(slice(x, -1, 0, 1).value(), Tensor::from({3, 1}, {1, 3, 5})));
  EXPECT_TRUE(all_close(reshape(x, {2, -1}).value(), Tensor::from({2, 3}, {1, 2, 3, 4, 5, 6})));
}

TEST(Index, GradientCheck) {
  Var x = random_var({3, 4, 2}, 1);
  for (int d = 0; d < 3; ++d) {
    EXPECT_TRUE(gradcheck([&] { return select(x, d, 1); }, {x})) << d;
    EXPECT_TRUE(gradcheck([&] { return slice(x, d, 1, 2); }, {x})) << d;
  }
  EXPECT_TRUE(gradcheck([&] { return select_time(x, 2); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return reshape(x, {4, 6}); }, {x}));
}

TEST(Index, GatherRows) {
  Var x(Tensor::from({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, DType::f64), true);
  const std::vector<std::int64_t> rows{3, 0, 3};
  Var y = gather_rows(x, rows);
  EXPECT_TRUE(all_close(y.value(), Tensor::from({3, 2}, {7, 8, 1, 2, 7, 8}, DType::f64)));
  Var r = random_var({2, 3, 4}, 3);
  const std::vector<std::int64_t> picks{5, 1, 1, 2};
  EXPECT_TRUE(gradcheck([&] { return gather_rows(r, picks); }, {r}));  // row 1 twice
  const std::vector<std::int64_t> bad{6};
  EXPECT_THROW(gather_rows(r, bad), Error);
}

TEST(Index, RejectsOutOfRange) {
  Var x = random_var({3, 4}, 2);
  EXPECT_THROW(select_time(x, 3), Error);
  EXPECT_THROW(select(x, 2, 0), Error);
  EXPECT_THROW(slice(x, 1, 2, 5), Error);
  EXPECT_THROW(reshape(x, {5, 2}), Error);
}

}  // namespace
}  // namespace heed
