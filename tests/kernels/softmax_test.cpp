#include "heed/kernels/softmax.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace heed::kernels {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(SoftmaxKernel, MaskIsReusedCyclicallyOverRows) {
  // 4 rows of 3 with a 2-row mask: rows 0, 2 use mask row 0; rows 1, 3 use mask row 1.
  std::vector<double> x(12, 0.0), y(12);
  std::vector<std::uint8_t> mask = {1, 1, 0, 1, 0, 0};
  softmax_rows<double>(x.data(), y.data(), 4, 3, mask.data(), 2);
  for (int r : {0, 2}) {
    EXPECT_DOUBLE_EQ(y[r * 3 + 0], 0.5);
    EXPECT_DOUBLE_EQ(y[r * 3 + 1], 0.5);
    EXPECT_EQ(y[r * 3 + 2], 0.0);
  }
  for (int r : {1, 3}) {
    EXPECT_DOUBLE_EQ(y[r * 3 + 0], 1.0);
    EXPECT_EQ(y[r * 3 + 1], 0.0);
    EXPECT_EQ(y[r * 3 + 2], 0.0);
  }
}

TEST(SoftmaxKernel, MinusInfinityInputsActLikeMasks) {
  std::vector<double> x = {-kInf, 0.0, -kInf, -kInf}, y(4), ly(4);
  softmax_rows<double>(x.data(), y.data(), 2, 2);
  log_softmax_rows<double>(x.data(), ly.data(), 2, 2);
  EXPECT_EQ(y[0], 0.0);
  EXPECT_EQ(y[1], 1.0);
  EXPECT_EQ(y[2], 0.0);  // all -inf: zeros, not NaN
  EXPECT_EQ(y[3], 0.0);
  EXPECT_EQ(ly[0], -kInf);
  EXPECT_EQ(ly[1], 0.0);
  EXPECT_EQ(ly[2], -kInf);
}

TEST(SoftmaxKernel, MaskedPositionsIgnoreTheirValues) {
  // A huge value at a masked position must not shift the maximum or the result.
  std::vector<float> x = {1.f, 2.f, 1e30f}, y(3);
  std::vector<std::uint8_t> mask = {1, 1, 0};
  softmax_rows<float>(x.data(), y.data(), 1, 3, mask.data(), 1);
  EXPECT_NEAR(y[0], 1 / (1 + std::exp(1.0)), 1e-6);
  EXPECT_NEAR(y[1], 1 / (1 + std::exp(-1.0)), 1e-6);
  EXPECT_EQ(y[2], 0.f);
}

TEST(SoftmaxKernel, BackwardAccumulates) {
  std::vector<double> y = {0.25, 0.75}, dy = {1.0, 0.0}, dx = {10.0, 20.0};
  softmax_rows_backward<double>(y.data(), dy.data(), dx.data(), 1, 2);
  // dx += y (dy - <dy, y>) = (0.25 * 0.75, 0.75 * -0.25)
  EXPECT_DOUBLE_EQ(dx[0], 10.0 + 0.1875);
  EXPECT_DOUBLE_EQ(dx[1], 20.0 - 0.1875);
  std::vector<double> ly = {std::log(0.25), -kInf}, ldy = {1.0, 5.0}, ldx = {1.0, 1.0};
  log_softmax_rows_backward<double>(ly.data(), ldy.data(), ldx.data(), 1, 2);
  EXPECT_DOUBLE_EQ(ldx[0], 1.0 + 1.0 - 0.25 * 6.0);
  EXPECT_EQ(ldx[1], 1.0);  // masked: nothing added
}

TEST(SoftmaxKernel, ArgmaxLogProbMatchesLogSoftmax) {
  // Row 0 has a tie (the first wins); row 1 a clear maximum; row 2 is all -inf.
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<double> x{1.0, 3.0, -2.0, 3.0, 0.5, -1.0, 4.0, 2.0, -inf, -inf, -inf, -inf};
  std::vector<double> logp(x.size());
  heed::kernels::log_softmax_rows(x.data(), logp.data(), 2, 4);
  std::vector<std::int32_t> index(3);
  std::vector<double> best(3);
  heed::kernels::argmax_log_prob_rows(x.data(), 3, 4, index.data(), best.data());
  EXPECT_EQ(index[0], 1);
  EXPECT_EQ(index[1], 2);
  EXPECT_NEAR(best[0], logp[1], 1e-14);
  EXPECT_NEAR(best[1], logp[6], 1e-14);
  EXPECT_EQ(index[2], 0);
  EXPECT_EQ(best[2], -inf);
}

TEST(SoftmaxKernel, ArgmaxOfWideRowsIsTheFirstMaximum) {
  // Rows wider than the 64-wide blocks the index scan tests at once: the maximum in the first
  // block, in a middle one, tied across two blocks (the first wins), and in the ragged tail.
  const std::int64_t cols = 1000;
  const std::vector<std::int64_t> where{0, 63, 64, 517, 999};
  std::vector<float> x;
  for (std::size_t r = 0; r < where.size(); ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      x.push_back(static_cast<float>((c * 7919 + static_cast<std::int64_t>(r)) % 997) / 100.f);
  for (std::size_t r = 0; r < where.size(); ++r)
    x[r * cols + static_cast<std::size_t>(where[r])] = 20.f;
  x[2 * cols + 900] = 20.f;  // a tie after the first maximum of row 2
  std::vector<std::int32_t> index(where.size());
  std::vector<float> best(where.size());
  heed::kernels::argmax_log_prob_rows(x.data(), static_cast<std::int64_t>(where.size()), cols,
                                      index.data(), best.data());
  for (std::size_t r = 0; r < where.size(); ++r) EXPECT_EQ(index[r], where[r]) << r;
}

TEST(SoftmaxKernel, LogSumExpIsWhatLogSoftmaxSubtracts) {
  // Small rows, an all -inf row, and a block large enough for the threaded path: x - lse must
  // equal log_softmax's output bit for bit (beam search relies on it).
  const float inf = std::numeric_limits<float>::infinity();
  for (const std::int64_t rows : {3, 40}) {
    const std::int64_t cols = rows == 3 ? 4 : 5000;
    std::vector<float> x(static_cast<std::size_t>(rows * cols));
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1000) / 37.f;
    for (std::int64_t c = 0; c < cols; ++c) x[static_cast<std::size_t>(cols + c)] = -inf;  // row 1
    std::vector<float> logp(x.size()), lse(static_cast<std::size_t>(rows));
    log_softmax_rows<float>(x.data(), logp.data(), rows, cols);
    log_sum_exp_rows<float>(x.data(), rows, cols, lse.data());
    EXPECT_EQ(lse[1], -inf);
    for (std::int64_t r = 0; r < rows; ++r) {
      if (r == 1) continue;
      for (std::int64_t c = 0; c < cols; ++c) {
        const auto i = static_cast<std::size_t>(r * cols + c);
        ASSERT_EQ(x[i] - lse[static_cast<std::size_t>(r)], logp[i]) << r << " " << c;
      }
    }
  }
}

TEST(SoftmaxKernel, LargeBlockRowsSumToOne) {
  // Large enough for the threaded path; float rows of a vocabulary-sized width.
  const std::int64_t rows = 40, cols = 5000;
  std::vector<float> x(static_cast<std::size_t>(rows * cols)), y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1000) / 50.f;
  softmax_rows<float>(x.data(), y.data(), rows, cols);
  for (std::int64_t r = 0; r < rows; ++r) {
    double s = 0;
    for (std::int64_t c = 0; c < cols; ++c) s += y[static_cast<std::size_t>(r * cols + c)];
    EXPECT_NEAR(s, 1.0, 1e-5) << r;
  }
}

}  // namespace
}  // namespace heed::kernels
