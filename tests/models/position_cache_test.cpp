// The position cache of incremental decoding (models/position_cache.h): appended rows land
// where each hypothesis reads them, reordering moves indices and shares the store, copies
// that go on appending keep their own positions, and growth keeps every row.
#include "heed/models/position_cache.h"

#include <vector>

#include <gtest/gtest.h>

#include "heed/base/error.h"

namespace heed {
namespace {

// (B, n, width) with element (b, i, c) = 100 step + 10 b + i + c / 100.
Tensor positions(std::int64_t B, std::int64_t n, std::int64_t width, double step) {
  Tensor t = Tensor::empty({B, n, width}, DType::f64);
  for (std::int64_t b = 0; b < B; ++b)
    for (std::int64_t i = 0; i < n; ++i)
      for (std::int64_t c = 0; c < width; ++c)
        t.set({b, i, c}, 100 * step + 10 * static_cast<double>(b) + static_cast<double>(i) +
                             static_cast<double>(c) / 100);
  return t;
}

void expect_position(const PositionCache& cache, std::int64_t b, std::int64_t j,
                     const Tensor& want) {
  EXPECT_EQ(cache.position(b, j).to_vector(), want.to_vector()) << "hypothesis " << b << ", position " << j;
}

TEST(PositionCache, AppendedRowsAreEachHypothesisPositions) {
  PositionCache cache(3, 4, DType::f64);
  EXPECT_EQ(cache.positions(), 0);
  const Tensor first = positions(3, 2, 4, 0), second = positions(3, 1, 4, 1);
  cache.append(first);
  cache.append(second);
  EXPECT_EQ(cache.hypotheses(), 3);
  EXPECT_EQ(cache.positions(), 3);
  for (std::int64_t b = 0; b < 3; ++b) {
    expect_position(cache, b, 0, first.select(0, b).select(0, 0));
    expect_position(cache, b, 1, first.select(0, b).select(0, 1));
    expect_position(cache, b, 2, second.select(0, b).select(0, 0));
  }
  // What the attention reads: index (B, t) into the rows, the values at the given column.
  const ListedKeys l = cache.listed(0, 2);
  EXPECT_EQ(l.keys, 3);
  EXPECT_EQ(l.value_column, 2);
  for (std::int64_t b = 0; b < 3; ++b)
    for (std::int64_t j = 0; j < 3; ++j)
      EXPECT_EQ(l.rows.select(0, l.index[b * 3 + j]).to_vector(), cache.position(b, j).to_vector());
}

TEST(PositionCache, AStridedSliceIsAppendedAsItsValues) {
  // The self-attention's [K; V]: columns [d, 3 d) of its (B, n, 3 d) projection.
  const Tensor qkv = positions(2, 1, 6, 0);
  PositionCache cache(2, 4, DType::f64);
  cache.append(qkv.slice(2, 2, 6));
  for (std::int64_t b = 0; b < 2; ++b)
    expect_position(cache, b, 0, qkv.slice(2, 2, 6).select(0, b).select(0, 0));
}

TEST(PositionCache, ReorderingFollowsTheRowsAndSharesTheStore) {
  PositionCache cache(3, 2, DType::f64);
  const Tensor a = positions(3, 1, 2, 0);
  cache.append(a);
  // Beam search's back-pointers: hypothesis 0 and 2 continue row 2, hypothesis 1 row 0.
  PositionCache next = cache.reorder(std::vector<std::int64_t>{2, 0, 2});
  const Tensor b = positions(3, 1, 2, 1);
  next.append(b);
  expect_position(next, 0, 0, a.select(0, 2).select(0, 0));
  expect_position(next, 1, 0, a.select(0, 0).select(0, 0));
  expect_position(next, 2, 0, a.select(0, 2).select(0, 0));
  for (std::int64_t h = 0; h < 3; ++h) expect_position(next, h, 1, b.select(0, h).select(0, 0));
  // The cache it came from keeps its own positions, and appending to it now disturbs neither.
  const Tensor c = positions(3, 1, 2, 2);
  cache.append(c);
  for (std::int64_t h = 0; h < 3; ++h) {
    expect_position(cache, h, 0, a.select(0, h).select(0, 0));
    expect_position(cache, h, 1, c.select(0, h).select(0, 0));
    expect_position(next, h, 1, b.select(0, h).select(0, 0));
  }
  // Fewer or more hypotheses than before (a beam's start replicates each sentence's row).
  const PositionCache wide = cache.reorder(std::vector<std::int64_t>{0, 0, 1, 1, 2, 2});
  EXPECT_EQ(wide.hypotheses(), 6);
  expect_position(wide, 3, 1, c.select(0, 1).select(0, 0));
}

TEST(PositionCache, GrowingKeepsEveryRow) {
  // Room for 16 positions a hypothesis at first: 40 steps grow the store twice.
  PositionCache cache(2, 3, DType::f64);
  std::vector<Tensor> steps;
  for (int t = 0; t < 40; ++t) {
    steps.push_back(positions(2, 1, 3, t));
    cache.append(steps.back());
    if (t % 7 == 0) cache = cache.reorder(std::vector<std::int64_t>{0, 1});
  }
  EXPECT_EQ(cache.positions(), 40);
  for (std::int64_t b = 0; b < 2; ++b)
    for (std::int64_t t = 0; t < 40; ++t)
      expect_position(cache, b, t, steps[static_cast<std::size_t>(t)].select(0, b).select(0, 0));
}

TEST(PositionCache, RejectsWhatItCannotHold) {
  PositionCache cache(2, 3, DType::f64);
  EXPECT_THROW(cache.append(Tensor::zeros({3, 1, 3}, DType::f64)), Error);  // 3 hypotheses
  EXPECT_THROW(cache.append(Tensor::zeros({2, 1, 4}, DType::f64)), Error);  // width 4
  EXPECT_THROW(cache.append(Tensor::zeros({2, 1, 3}, DType::f32)), Error);  // another dtype
  EXPECT_THROW(cache.listed(0, 0), Error);                                   // no positions yet
  cache.append(Tensor::zeros({2, 1, 3}, DType::f64));
  EXPECT_THROW(cache.reorder(std::vector<std::int64_t>{0, 2}), Error);
  EXPECT_THROW(cache.position(0, 1), Error);
  EXPECT_THROW(PositionCache().append(Tensor::zeros({2, 1, 3}, DType::f64)), Error);
}

}  // namespace
}  // namespace heed
