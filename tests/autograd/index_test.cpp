#include "heed/autograd/index.h"

#include <gtest/gtest.h>

#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/reduce_op.h"
#include "heed/autograd/tape.h"
#include "heed/kernels/gemm.h"
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
  EXPECT_TRUE(all_close(transpose(x, 0, 1).value(), Tensor::from({2, 3}, {1, 3, 5, 2, 4, 6})));
  Var y(Tensor::from({1, 2, 3, 2}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));  // (B, C, T, F)
  const Var t = transpose(y, 1, 2);                                             // (B, T, C, F)
  EXPECT_EQ(t.value().shape(), (Shape{1, 3, 2, 2}));
  EXPECT_TRUE(t.value().is_contiguous());
  EXPECT_TRUE(all_close(t.value(), Tensor::from({1, 3, 2, 2}, {1, 2, 7, 8, 3, 4, 9, 10, 5, 6,
                                                                11, 12})));
}

TEST(Index, GradientCheck) {
  Var x = random_var({3, 4, 2}, 1);
  for (int d = 0; d < 3; ++d) {
    EXPECT_TRUE(gradcheck([&] { return select(x, d, 1); }, {x})) << d;
    EXPECT_TRUE(gradcheck([&] { return slice(x, d, 1, 2); }, {x})) << d;
  }
  EXPECT_TRUE(gradcheck([&] { return select_time(x, 2); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return reshape(x, {4, 6}); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return transpose(x, 0, 2); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return transpose(x, 1, 2); }, {x}));
  EXPECT_TRUE(gradcheck([&] { return transpose(select(x, 1, 2), 0, 1); }, {x}));  // a strided input
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

TEST(Index, AddRows) {
  Var x(Tensor::from({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8}, DType::f64), true);
  Var y(Tensor::from({2, 2}, {10, 20, 30, 40}, DType::f64), true);
  const std::vector<std::int64_t> rows{3, 0};
  Var z = add_rows(x, rows, y);
  EXPECT_EQ(z.value().shape(), x.value().shape());
  EXPECT_TRUE(all_close(z.value(), Tensor::from({2, 2, 2}, {31, 42, 3, 4, 5, 6, 17, 28}, DType::f64), 0, 0));
  // gather_rows' inverse: the rows it did not touch pass through, the others get the sum.
  Var a = random_var({2, 3, 4}, 4), b = random_var({3, 4}, 5);
  const std::vector<std::int64_t> picks{5, 0, 2};
  EXPECT_TRUE(gradcheck([&] { return add_rows(a, picks, b); }, {a, b}));
  EXPECT_TRUE(gradcheck([&] { return add_rows(a, picks, gather_rows(a, picks)); }, {a}));
  const std::vector<std::int64_t> twice{1, 1, 2}, outside{0, 1, 6};
  EXPECT_THROW(add_rows(a, twice, b), Error);
  EXPECT_THROW(add_rows(a, outside, b), Error);
  EXPECT_THROW(add_rows(a, std::vector<std::int64_t>{0, 1}, b), Error);  // 2 rows, y has 3
}

TEST(Index, ScatterRows) {
  Var y(Tensor::from({2, 2}, {10, 20, 30, 40}, DType::f64), true);
  const std::vector<std::int64_t> rows{3, 0};
  Var z = scatter_rows(y, rows, Shape{2, 2, 2});
  EXPECT_EQ(z.value().shape(), (Shape{2, 2, 2}));
  EXPECT_TRUE(all_close(z.value(),
                        Tensor::from({2, 2, 2}, {30, 40, 0, 0, 0, 0, 10, 20}, DType::f64), 0, 0));
  // add_rows into zeros, in one pass; gather_rows undoes it.
  Var b = random_var({3, 4}, 6);
  const std::vector<std::int64_t> picks{5, 0, 2};
  EXPECT_TRUE(gradcheck([&] { return scatter_rows(b, picks, Shape{2, 3, 4}); }, {b}));
  EXPECT_TRUE(
      gradcheck([&] { return gather_rows(scatter_rows(b, picks, Shape{6, 4}), picks); }, {b}));
  // The gradient accumulates when y already has one (y read twice).
  const std::vector<std::int64_t> others{1, 3, 4};
  const auto twice_read = [&] {
    return add(scatter_rows(b, picks, Shape{6, 4}), scatter_rows(b, others, Shape{6, 4}));
  };
  EXPECT_TRUE(gradcheck(twice_read, {b}));
  const std::vector<std::int64_t> twice{1, 1, 2}, outside{0, 1, 6};
  EXPECT_THROW(scatter_rows(b, twice, Shape{6, 4}), Error);
  EXPECT_THROW(scatter_rows(b, outside, Shape{6, 4}), Error);
  EXPECT_THROW(scatter_rows(b, std::vector<std::int64_t>{0, 1}, Shape{6, 4}), Error);  // 3 in y
  EXPECT_THROW(scatter_rows(b, picks, Shape{6, 5}), Error);  // rows of 4, not 5
}

// gather_rows, add_rows and scatter_rows split their rows (and gather_rows' gradient its
// columns) across the threads when large: the same values and gradients, bit for bit, on one
// and two threads, a row picked twice included.
TEST(Index, GatherAddAndScatterRowsAreTheSameBitsOnOneAndTwoThreads) {
  const std::int64_t N = 800, F = 256;
  std::vector<std::int64_t> picks;
  for (std::int64_t r = 0; r < N; r += 2) picks.push_back(r);
  picks.push_back(4);  // twice
  std::vector<std::int64_t> distinct(picks.begin(), picks.end() - 1);
  auto run = [&](int threads) {
    const kernels::ScopedNumThreads scoped(threads);
    Tape::current().clear();
    Var x = random_var({N, F}, 21);
    Var y = random_var({static_cast<std::int64_t>(distinct.size()), F}, 22);
    Var g = gather_rows(x, picks);
    Var z = add_rows(x, distinct, y);
    Var s = scatter_rows(y, distinct, Shape{N, F});
    Var loss = add(add(sum(mul(g, g)), sum(mul(z, z))), sum(mul(s, s)));
    Tape::current().backward(loss);
    Tape::current().clear();
    return std::vector<Tensor>{g.value(), z.value(), s.value(), x.grad(), y.grad()};
  };
  const auto one = run(1), two = run(2);
  for (std::size_t t = 0; t < one.size(); ++t)
    EXPECT_TRUE(all_close(one[t], two[t], 0, 0)) << t;
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
