#include "heed/kernels/elementwise.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace heed::kernels {
namespace {

TEST(ElementwiseKernel, BackwardsAccumulate) {
  std::vector<float> y = {0.5f}, dy = {2.f}, dx = {1.f};
  tanh_backward<float>(y.data(), dy.data(), dx.data(), 1);
  EXPECT_FLOAT_EQ(dx[0], 1.f + 2.f * 0.75f);
  sigmoid_backward<float>(y.data(), dy.data(), dx.data(), 1);
  EXPECT_FLOAT_EQ(dx[0], 2.5f + 2.f * 0.25f);
  std::vector<double> r = {-1.0, 0.0, 2.0}, rdy = {1, 1, 1}, rdx = {0, 0, 0};
  relu_backward<double>(r.data(), rdy.data(), rdx.data(), 3);
  EXPECT_EQ(rdx, (std::vector<double>{0, 0, 1}));
}

TEST(ElementwiseKernel, AddRowsBroadcastsTheVector) {
  std::vector<double> x = {1, 2, 3, 4}, v = {10, 20}, y(4);
  add_rows<double>(x.data(), v.data(), y.data(), 2, 2);
  EXPECT_EQ(y, (std::vector<double>{11, 22, 13, 24}));
}

}  // namespace
}  // namespace heed::kernels
