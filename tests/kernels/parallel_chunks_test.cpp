// kernels::parallel_chunks (kernels/parallel_chunks.h): the pieces cover [0, n) once, in
// contiguous aligned pieces, on as many threads as the work is worth; and the kernels split
// with it (sum_rows, broadcast_rows) give the same bits on one thread and on two.
#include <gtest/gtest.h>

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "heed/kernels/gemm.h"
#include "heed/kernels/parallel_chunks.h"
#include "heed/kernels/reduce.h"

namespace heed {
namespace {

using Pieces = std::vector<std::pair<std::int64_t, std::int64_t>>;

Pieces pieces_of(std::int64_t n, std::int64_t work, std::int64_t align) {
  Pieces pieces;
  std::mutex m;
  kernels::parallel_chunks(
      n, work,
      [&](std::int64_t b, std::int64_t e) {
        const std::lock_guard<std::mutex> lock(m);
        pieces.emplace_back(b, e);
      },
      align);
  std::sort(pieces.begin(), pieces.end());
  return pieces;
}

TEST(ParallelChunks, SmallWorkIsOnePieceOnTheCallingThread) {
  const kernels::ScopedNumThreads two(2);
  EXPECT_EQ(pieces_of(1000, 1, 16), (Pieces{{0, 1000}}));
  EXPECT_EQ(pieces_of(10, 1000, 1), (Pieces{{0, 10}}));  // 10,000 elements: under 32,768
  EXPECT_TRUE(pieces_of(0, 1000, 1).empty());
}

TEST(ParallelChunks, LargeWorkIsOneAlignedPiecePerThread) {
  const kernels::ScopedNumThreads two(2);
  // 100,001 elements in 16-element blocks: 6,251 blocks, 3,125 for the first thread.
  EXPECT_EQ(pieces_of(100001, 1, 16), (Pieces{{0, 50000}, {50000, 100001}}));
  // Rows of 1,024 elements: each piece needs 32 rows (32,768 elements) of work.
  EXPECT_EQ(pieces_of(65, 1024, 1), (Pieces{{0, 32}, {32, 65}}));
  EXPECT_EQ(pieces_of(63, 1024, 1), (Pieces{{0, 63}}));
  const kernels::ScopedNumThreads one(1);
  EXPECT_EQ(pieces_of(100001, 1, 16), (Pieces{{0, 100001}}));
}

TEST(ParallelChunks, InsideAParallelRegionStaysOnOneThread) {
  const kernels::ScopedNumThreads two(2);
  std::vector<Pieces> seen(2);
#pragma omp parallel num_threads(2)
  seen[static_cast<std::size_t>(omp_get_thread_num())] = pieces_of(100000, 1, 16);
  for (const Pieces& p : seen) {
    if (!p.empty()) {
      EXPECT_EQ(p, (Pieces{{0, 100000}}));
    }
  }
}

TEST(ParallelChunks, SumAndBroadcastRowsAreTheSameBitsOnOneAndTwoThreads) {
  const std::int64_t rows = 301, cols = 1000;  // 301,000 elements: split on two threads
  std::vector<float> x(static_cast<std::size_t>(rows * cols)), v(static_cast<std::size_t>(cols));
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7919) % 1013) / 97.f;
  for (std::size_t c = 0; c < v.size(); ++c) v[c] = static_cast<float>(c) * 0.25f - 3.f;
  auto run = [&](int threads) {
    const kernels::ScopedNumThreads scoped(threads);
    std::vector<float> sums(v), y(x.size());
    kernels::sum_rows<float>(x.data(), sums.data(), rows, cols);
    kernels::broadcast_rows<float>(v.data(), y.data(), rows, cols);
    return std::make_pair(sums, y);
  };
  const auto one = run(1), two = run(2);
  EXPECT_EQ(one.first, two.first);
  EXPECT_EQ(one.second, two.second);
  // The sums in row order, column by column.
  for (std::int64_t c : {std::int64_t{0}, std::int64_t{517}, cols - 1}) {
    float s = v[static_cast<std::size_t>(c)];
    for (std::int64_t r = 0; r < rows; ++r) s += x[static_cast<std::size_t>(r * cols + c)];
    EXPECT_EQ(one.first[static_cast<std::size_t>(c)], s);
  }
  EXPECT_EQ(one.second[static_cast<std::size_t>(5 * cols + 7)], v[7]);
}

}  // namespace
}  // namespace heed
