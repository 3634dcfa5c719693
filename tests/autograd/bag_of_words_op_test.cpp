#include "heed/autograd/bag_of_words_op.h"

#include <gtest/gtest.h>

#include "heed/autograd/reduce_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

std::shared_ptr<WordRowBatch> rows(std::int64_t n, std::int64_t width, std::vector<std::int32_t> ids,
                                   std::vector<std::int32_t> lengths,
                                   std::vector<std::int32_t> time = {}) {
  auto r = std::make_shared<WordRowBatch>();
  r->rows = n;
  r->width = width;
  r->ids = std::move(ids);
  r->lengths = std::move(lengths);
  r->time = std::move(time);
  return r;
}

TEST(BagOfWords, PositionWeightsFollowThePaper) {
  // l_kj = (1 - j/J) - (k/d)(1 - 2j/J): J = 2, d = 2.
  EXPECT_DOUBLE_EQ(kernels::position_weight(1, 2, 1, 2), 0.5 - 0.5 * 0.0);
  EXPECT_DOUBLE_EQ(kernels::position_weight(2, 2, 1, 2), 0.0 - 0.5 * -1.0);
  EXPECT_DOUBLE_EQ(kernels::position_weight(2, 2, 2, 2), 0.0 - 1.0 * -1.0);
  EXPECT_DOUBLE_EQ(kernels::position_weight(1, 4, 3, 6), 0.75 - 0.5 * 0.5);
}

TEST(BagOfWords, SumsPositionWeightedRowsAndTheTemporalRow) {
  Var table(Tensor::from({4, 2}, {0, 0, 1, 2, 3, 4, 5, 6}, DType::f64));
  Var temporal(Tensor::from({3, 2}, {10, 20, 30, 40, 50, 60}, DType::f64));
  // Row 0: words 1, 2 (J = 2) at time 2; row 1: empty; row 2: word 3 alone at time 0.
  auto r = rows(3, 2, {1, 2, 0, 0, 3, 0}, {2, 0, 1}, {2, -1, 0});
  Var y = bag_of_words(table, temporal, r, /*position=*/true);
  // Row 0: l_11 = 0.5, l_21 = 0.5 - 0 = ... with J = 2, d = 2: word 1 weights (0.5, 0.5),
  // word 2 weights (0.5, 1.0).
  const double a0 = 0.5 * 1 + 0.5 * 3 + 50, a1 = 0.5 * 2 + 1.0 * 4 + 60;
  // Row 2: J = 1: l_1k = 0 - (k/2)(1 - 2) = k/2: (0.5, 1.0).
  const double c0 = 0.5 * 5 + 10, c1 = 1.0 * 6 + 20;
  EXPECT_TRUE(all_close(y.value(), Tensor::from({3, 2}, {a0, a1, 0, 0, c0, c1}, DType::f64)));
  Var plain = bag_of_words(table, Var(), rows(1, 2, {1, 2}, {2}), /*position=*/false);
  EXPECT_TRUE(all_close(plain.value(), Tensor::from({1, 2}, {4, 6}, DType::f64)));
}

TEST(BagOfWords, GradientCheck) {
  Var table = random_var({6, 5}, 1);
  Var temporal = random_var({4, 5}, 2);
  auto r = rows(4, 3, {1, 2, 5, 3, 3, 0, 0, 0, 0, 4, 1, 2}, {3, 2, 0, 3}, {3, 0, -1, 1});
  for (bool position : {true, false}) {
    EXPECT_TRUE(gradcheck([&] { return bag_of_words(table, temporal, r, position); },
                          {table, temporal}));
    EXPECT_TRUE(gradcheck([&] { return bag_of_words(table, Var(), rows(2, 3, {1, 2, 5, 3, 0, 0},
                                                                        {3, 1}), position); },
                          {table}));
  }
}

// The kernel computes the position weights of each row length once per call and reuses them
// for later rows of that length: rows of mixed lengths give, row for row, exactly what each
// row gives alone, and their gradients sum to the batch's.
TEST(BagOfWords, RowsOfMixedLengthsAsEachAlone) {
  Var table = random_var({7, 5}, 5);
  Var temporal = random_var({4, 5}, 6);
  const std::vector<std::int32_t> ids = {1, 2, 3, 0, 4, 0, 0, 0, 5, 6, 1, 0,
                                         2, 2, 0, 0, 0, 0, 0, 0, 3, 4, 5, 6};
  const std::vector<std::int32_t> lengths = {3, 1, 3, 2, 0, 4}, time = {3, 2, 1, 0, -1, 2};
  const std::int64_t n = 6, width = 4, d = 5;
  for (bool position : {true, false}) {
    table.zero_grad();
    temporal.zero_grad();
    Var y = bag_of_words(table, temporal, rows(n, width, ids, lengths, time), position);
    Var total = sum(y);
    Tape::current().backward(total);
    const Tensor batch_table = table.grad().clone(), batch_temporal = temporal.grad().clone();
    table.zero_grad();
    temporal.zero_grad();
    const std::vector<double> all = y.value().to_vector();
    for (std::int64_t r = 0; r < n; ++r) {
      const auto at = static_cast<std::size_t>(r);
      Var one = bag_of_words(table, temporal,
                             rows(1, width, std::vector<std::int32_t>(ids.begin() + r * width,
                                                                      ids.begin() + (r + 1) * width),
                                  {lengths[at]}, {time[at]}),
                             position);
      const std::vector<double> alone = one.value().to_vector();
      for (std::int64_t k = 0; k < d; ++k)
        EXPECT_EQ(all[static_cast<std::size_t>(r * d + k)], alone[static_cast<std::size_t>(k)])
            << "row " << r << ", component " << k << ", position " << position;
      Var part = sum(one);
      Tape::current().backward(part);
    }
    EXPECT_TRUE(all_close(batch_table, table.grad()));
    EXPECT_TRUE(all_close(batch_temporal, temporal.grad()));
  }
}

TEST(BagOfWords, RejectsBadInput) {
  Var table = random_var({4, 2}, 3);
  Var temporal = random_var({2, 2}, 4);
  EXPECT_THROW(bag_of_words(table, Var(), rows(1, 2, {1, 4}, {2}), true), Error);   // id 4
  EXPECT_THROW(bag_of_words(table, Var(), rows(1, 2, {1, 1}, {3}), true), Error);   // length
  EXPECT_THROW(bag_of_words(table, Var(), rows(1, 2, {1}, {1}), true), Error);      // ids
  EXPECT_THROW(bag_of_words(table, temporal, rows(1, 1, {1}, {1}, {2}), true), Error);  // time
  EXPECT_THROW(bag_of_words(table, Var(), rows(1, 1, {1}, {1}, {0}), true), Error);  // no table
}

}  // namespace
}  // namespace heed
