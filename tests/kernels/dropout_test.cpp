#include "heed/kernels/dropout.h"

#include <Random123/philox.h>
#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace heed::kernels {
namespace {

TEST(DropoutKernel, KeepRateAndScale) {
  Rng rng(3);
  std::vector<float> m(100001);  // not a multiple of 128: the last chunk is partial
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
  dropout_mask<double>(m.data(), 64, 1.0 - 1e-6, rng);  // p 2^16 rounds to 2^16: none kept
  for (double v : m) EXPECT_EQ(v, 0.0);
}

// The documented generator: one draw of the Rng keys Random123's Philox4x32-10; element
// 128 j + 32 w + 16 h + t is half h (0: the low 16 bits) of word w of counter 16 j + t, kept
// when that half is >= p 2^16.
TEST(DropoutKernel, IsPhiloxKeyedByOneDraw) {
  Rng rng(5), copy(5);
  const double p = 0.25;
  std::vector<float> m(8291);  // 64 chunks and a partial one
  dropout_mask<float>(m.data(), static_cast<std::int64_t>(m.size()), p, rng);
  const std::uint64_t key = copy.next();
  EXPECT_EQ(rng.next(), copy.next()) << "the mask takes exactly one draw";
  const r123::Philox4x32::key_type k = {
      {static_cast<std::uint32_t>(key), static_cast<std::uint32_t>(key >> 32)}};
  for (std::size_t i = 0; i < m.size(); ++i) {
    const std::uint64_t c = i / 128 * 16 + i % 16;
    const r123::Philox4x32::ctr_type counter = {
        {static_cast<std::uint32_t>(c), static_cast<std::uint32_t>(c >> 32), 0u, 0u}};
    const std::uint32_t word = philox4x32_R(10, counter, k).v[i % 128 / 32];
    const std::uint32_t half = i % 32 < 16 ? word & 0xffffu : word >> 16;
    ASSERT_EQ(m[i] != 0.f, half >= 16384u) << "element " << i;  // 0.25 2^16
  }
}

TEST(DropoutKernel, SameBitsAtAnyThreadCount) {
  const int threads = omp_get_max_threads();
  std::vector<float> one(1 << 18), two(1 << 18);
  Rng a(6), b(6);
  omp_set_num_threads(1);
  dropout_mask<float>(one.data(), static_cast<std::int64_t>(one.size()), 0.1, a);
  omp_set_num_threads(2);
  dropout_mask<float>(two.data(), static_cast<std::int64_t>(two.size()), 0.1, b);
  omp_set_num_threads(threads);
  EXPECT_EQ(one, two);
}

// Neighbours (within a block of four and across blocks) and successive masks are independent:
// both kept at the rate (1 - p)^2.
TEST(DropoutKernel, NeighboursAndSuccessiveMasksIndependent) {
  Rng rng(7);
  const std::int64_t n = 1 << 18;
  std::vector<float> first(n), second(n);
  dropout_mask<float>(first.data(), n, 0.5, rng);
  dropout_mask<float>(second.data(), n, 0.5, rng);
  for (std::int64_t lag : {1, 3, 4, 5}) {
    std::int64_t both = 0;
    for (std::int64_t i = 0; i + lag < n; ++i) both += first[i] != 0 && first[i + lag] != 0;
    EXPECT_NEAR(static_cast<double>(both) / static_cast<double>(n - lag), 0.25, 0.006) << lag;
  }
  std::int64_t both = 0;
  for (std::int64_t i = 0; i < n; ++i) both += first[i] != 0 && second[i] != 0;
  EXPECT_NEAR(static_cast<double>(both) / static_cast<double>(n), 0.25, 0.006);
}

// dropout_apply multiplies by the mask dropout_mask writes from the same state (after ReLU
// with relu), on two threads, with a partial last chunk, at the edge probabilities too.
TEST(DropoutKernel, ApplyIsTimesTheMask) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(2);
  Rng values(8);
  const std::int64_t n = (1 << 17) + 77;
  std::vector<float> x(static_cast<std::size_t>(n));
  for (float& v : x) v = static_cast<float>(values.uniform() * 2 - 1);
  for (double p : {0.0, 0.1, 0.5, 1.0}) {
    for (bool relu : {false, true}) {
      Rng a(9), b(9);
      std::vector<float> mask(x.size()), y = x;
      dropout_mask<float>(mask.data(), n, p, a);
      dropout_apply<float>(y.data(), n, p, b, relu);
      EXPECT_EQ(a.next(), b.next()) << "one draw each";
      for (std::size_t i = 0; i < x.size(); ++i)
        ASSERT_EQ(y[i], (relu ? std::max(x[i], 0.f) : x[i]) * mask[i])
            << p << " " << relu << " " << i;
    }
  }
  omp_set_num_threads(threads);
}

}  // namespace
}  // namespace heed::kernels
