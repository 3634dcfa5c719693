// glimpse (autograd/glimpse_op.h; docs/MODELS.md, "Glimpse sensor"): the geometry on known
// images (centre, corners, patches partly outside), and gradients in double.
#include "heed/autograd/glimpse_op.h"

#include <gtest/gtest.h>

#include "heed/kernels/gemm.h"
#include "heed/kernels/glimpse.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::gradcheck;
using testing::random_tensor;
using testing::random_var;

// One 8x8 image whose pixel (r, c) is 8 r + c + 1 (so no pixel is 0).
Var numbered() {
  std::vector<double> v(64);
  for (int i = 0; i < 64; ++i) v[static_cast<std::size_t>(i)] = i + 1;
  return Var(Tensor::from({1, 1, 8, 8}, v, DType::f64), true);
}

std::vector<double> look(const Var& image, double row, double col, std::int64_t g, std::int64_t k) {
  return glimpse(image, Tensor::from({1, 2}, {row, col}, DType::f64), {g, k}).value().to_vector();
}

TEST(Glimpse, OriginIsTheNearestRowToCentreMinusHalfTheSide) {
  EXPECT_EQ(kernels::glimpse_origin(0.0, 8, 2), 3);    // centre 4: rows 3, 4
  EXPECT_EQ(kernels::glimpse_origin(0.0, 8, 3), 3);    // centre 4: rows 3..5 (4 - 1.5 -> 3)
  EXPECT_EQ(kernels::glimpse_origin(-1.0, 8, 2), -1);  // centre 0: rows -1, 0
  EXPECT_EQ(kernels::glimpse_origin(1.0, 8, 2), 7);    // centre 8: rows 7, 8
  EXPECT_EQ(kernels::glimpse_origin(-0.5, 28, 8), 3);  // centre 7: rows 3..10
}

TEST(Glimpse, KnownPatchAtTheCentre) {
  // g 2: rows 3-4, columns 3-4.
  EXPECT_EQ(look(numbered(), 0, 0, 2, 1), (std::vector<double>{28, 29, 36, 37}));
  // (row -0.5, col 0.5): centre (2, 6): rows 1-2, columns 5-6; the location is (row, col).
  EXPECT_EQ(look(numbered(), -0.5, 0.5, 2, 1), (std::vector<double>{14, 15, 22, 23}));
}

TEST(Glimpse, CornersAreHalfOutside) {
  EXPECT_EQ(look(numbered(), -1, -1, 2, 1), (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(look(numbered(), 1, 1, 2, 1), (std::vector<double>{64, 0, 0, 0}));
  EXPECT_EQ(look(numbered(), -1, 1, 2, 1), (std::vector<double>{0, 0, 8, 0}));
}

TEST(Glimpse, LargerPatchesAreAveragedDown) {
  // k 2 at the centre: patch 1 is rows/columns 3-4 as above, patch 2 rows/columns 2-5 in
  // 2x2 blocks: the block of rows 2-3, columns 2-3 averages 19, 20, 27, 28.
  const std::vector<double> y = look(numbered(), 0, 0, 2, 2);
  ASSERT_EQ(y.size(), 8u);
  EXPECT_EQ(std::vector<double>(y.begin(), y.begin() + 4), (std::vector<double>{28, 29, 36, 37}));
  EXPECT_EQ(std::vector<double>(y.begin() + 4, y.end()),
            (std::vector<double>{23.5, 25.5, 39.5, 41.5}));
}

TEST(Glimpse, PatchPartlyOutsideCountsZeros) {
  // Side 16 at the centre of an 8x8 image (rows -4..11): the 4x4 blocks around the border
  // are all outside (0); the inner ones are the image's quarters; the whole image is seen,
  // so the averages sum to the image's sum over 16.
  const std::vector<double> y = look(numbered(), 0, 0, 4, 3);
  ASSERT_EQ(y.size(), 48u);
  const std::vector<double> big(y.begin() + 32, y.end());
  EXPECT_EQ(big[0], 0.0);
  EXPECT_EQ(big[15], 0.0);
  // block (1, 1): rows 0-3, columns 0-3: mean of 8 r + c + 1 = 8 * 1.5 + 1.5 + 1.
  EXPECT_DOUBLE_EQ(big[5], 14.5);
  double sum = 0;
  for (double v : big) sum += v;
  EXPECT_DOUBLE_EQ(sum * 16, 64 * 65 / 2);
  // At the corner, three quarters of the 2x2 patch and most of the larger ones are outside.
  const std::vector<double> c = look(numbered(), 1, 1, 2, 3);
  EXPECT_EQ(std::vector<double>(c.begin(), c.begin() + 4), (std::vector<double>{64, 0, 0, 0}));
  // Patch 3 (side 8, rows 4-11): its top-left 4x4 block is the image's bottom-right quarter.
  EXPECT_DOUBLE_EQ(c[8], (37 + 40 + 61 + 64) / 4.0);
  EXPECT_EQ(c[11], 0.0);
}

TEST(Glimpse, ChannelsAndImagesAreIndependent) {
  Var x = random_var({2, 3, 6, 6}, 1);
  Tensor loc = Tensor::from({2, 2}, {0.2, -0.4, -1, 0.9}, DType::f64);
  const std::vector<double> y = glimpse(x, loc, {2, 2}).value().to_vector();
  ASSERT_EQ(y.size(), 2u * 2 * 3 * 4);
  // Image 1, patch 1, channel 2, first pixel: location (-1, 0.9) on 6x6: centre (0, 5.7),
  // rows -1..0, columns floor(5.7 - 1 + 0.5) = 5..6: pixel (0, 5) is the fourth entry.
  const std::size_t at = 24 + 0 * 12 + 2 * 4;
  EXPECT_EQ(y[at + 0], 0.0);
  EXPECT_EQ(y[at + 1], 0.0);
  EXPECT_EQ(y[at + 2], x.value().at({1, 2, 0, 5}));
  EXPECT_EQ(y[at + 3], 0.0);
}

TEST(Glimpse, FloatMatchesDouble) {
  Var x = random_var({2, 2, 10, 10}, 5);
  Tensor loc = random_tensor({2, 2}, 6);
  Var xf(x.value().to(DType::f32));
  EXPECT_TRUE(testing::all_close(glimpse(xf, loc, {2, 3}).value().to(DType::f64),
                                 glimpse(x, loc, {2, 3}).value(), 1e-6));
}

TEST(Glimpse, GradientCheck) {
  Var x = random_var({2, 2, 7, 9}, 2);
  Tensor loc = random_tensor({2, 2}, 3);
  EXPECT_TRUE(gradcheck([&] { return glimpse(x, loc, {3, 3}); }, {x}));
  Tensor corners = Tensor::from({2, 2}, {-1, 1, 1, -1}, DType::f64);
  EXPECT_TRUE(gradcheck([&] { return glimpse(x, corners, {2, 2}); }, {x}));
}

// A batch large enough to be split across threads gives each image what it gets alone, forward
// and backward (each block of images has a workspace of its own).
TEST(Glimpse, BatchSplitAcrossThreadsMatchesImagesAlone) {
  const int before = kernels::num_threads();
  kernels::set_num_threads(2);
  const kernels::GlimpseShape batch{40, 2, 12, 11, 2, 3};
  kernels::GlimpseShape one = batch;
  one.N = 1;
  const std::int64_t image = batch.C * batch.H * batch.W, out = batch.out_size();
  const std::vector<double> x = random_tensor({batch.N, image}, 7).to_vector();
  const std::vector<double> loc = random_tensor({batch.N, 2}, 8).to_vector();
  const std::vector<double> dy = random_tensor({batch.N, out}, 9).to_vector();
  std::vector<double> y(static_cast<std::size_t>(batch.N * out));
  std::vector<double> dx(x.size(), 0.5);
  kernels::glimpse_forward<double>(x.data(), loc.data(), y.data(), batch);
  kernels::glimpse_backward<double>(loc.data(), dy.data(), dx.data(), batch);
  for (std::int64_t n = 0; n < batch.N; ++n) {
    std::vector<double> y1(static_cast<std::size_t>(out)),
        dx1(static_cast<std::size_t>(image), 0.5);
    kernels::glimpse_forward<double>(x.data() + n * image, loc.data() + 2 * n, y1.data(), one);
    kernels::glimpse_backward<double>(loc.data() + 2 * n, dy.data() + n * out, dx1.data(), one);
    for (std::int64_t i = 0; i < out; ++i)
      ASSERT_EQ(y[static_cast<std::size_t>(n * out + i)], y1[static_cast<std::size_t>(i)])
          << "image " << n << " output " << i;
    for (std::int64_t i = 0; i < image; ++i)
      ASSERT_EQ(dx[static_cast<std::size_t>(n * image + i)], dx1[static_cast<std::size_t>(i)])
          << "image " << n << " pixel " << i;
  }
  kernels::set_num_threads(before);
}

TEST(Glimpse, RefusesBadArguments) {
  Var x = random_var({1, 1, 4, 4}, 4);
  EXPECT_THROW(glimpse(x, Tensor::from({1, 2}, {1.5, 0}, DType::f64)), Error);
  EXPECT_THROW(glimpse(x, Tensor::from({2, 2}, {0, 0, 0, 0}, DType::f64)), Error);
  EXPECT_THROW(glimpse(x, Tensor::from({1, 2}, {0, 0}, DType::f64), {0, 1}), Error);
}

}  // namespace
}  // namespace heed
