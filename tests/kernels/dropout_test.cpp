#include "heed/kernels/dropout.h"

#include <vector>

#include <gtest/gtest.h>

namespace heed::kernels {
namespace {

TEST(DropoutKernel, KeepRateAndScale) {
  Rng rng(3);
  std::vector<float> m(100001);  // odd length: the tail element uses its own draw
  dropout_mask<float>(m.data(), static_cast<std::int64_t>(m.size()), 0.3, rng);
  std::int64_t kept = 0;
  for (float v : m) {
    ASSERT_TRUE(v == 0.f || v == static_cast<float>(1.0 / 0.7)) << v;
    kept += v != 0.f;
  }
  EXPECT_NEAR(static_cast<double>(kept) / static_cast<double>(m.size()), 0.7, 0.01);
}

TEST(DropoutKernel, EdgeProbabilities) {
  Rng rng(4);
  std::vector<double> m(64);
  dropout_mask<double>(m.data(), 64, 0.0, rng);
  for (double v : m) EXPECT_EQ(v, 1.0);
  dropout_mask<double>(m.data(), 64, 1.0, rng);
  for (double v : m) EXPECT_EQ(v, 0.0);
}

}  // namespace
}  // namespace heed::kernels
