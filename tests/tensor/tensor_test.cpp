#include "heed/tensor/tensor.h"

#include <cstdint>

#include <gtest/gtest.h>

#include "heed/tensor/arena.h"

namespace heed {
namespace {

Tensor iota(const Shape& s, DType dt = DType::f32) {
  std::vector<double> v(static_cast<std::size_t>(s.numel()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i);
  return Tensor::from(s, v, dt);
}

TEST(Tensor, StorageIs64ByteAligned) {
  for (int n : {1, 3, 17, 1000}) {
    Tensor t = Tensor::empty({n});
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.raw()) % 64, 0u);
  }
}

TEST(Tensor, ZerosFullAndItem) {
  Tensor z = Tensor::zeros({2, 3}, DType::f64);
  for (double v : z.to_vector()) EXPECT_EQ(v, 0.0);
  EXPECT_EQ(Tensor::full({1}, 2.5).item(), 2.5);
  EXPECT_THROW(z.item(), Error);
}

TEST(Tensor, ReshapeSharesStorageAndInfers) {
  Tensor t = iota({2, 3, 4});
  Tensor r = t.reshape({6, -1});
  EXPECT_EQ(r.shape(), Shape({6, 4}));
  EXPECT_EQ(r.raw(), t.raw());
  r.set({5, 3}, -1);
  EXPECT_EQ(t.at({1, 2, 3}), -1);
  EXPECT_THROW(t.reshape({5, -1}), Error);
  EXPECT_THROW(t.reshape({-1, -1}), Error);
}

TEST(Tensor, SliceSelectTransposeAreViews) {
  Tensor t = iota({3, 4});
  Tensor s = t.slice(1, 1, 3);  // columns 1..2
  EXPECT_EQ(s.shape(), Shape({3, 2}));
  EXPECT_FALSE(s.is_contiguous());
  EXPECT_EQ(s.at({2, 1}), 10);
  Tensor row = t.select(0, 2);
  EXPECT_EQ(row.shape(), Shape({4}));
  EXPECT_EQ(row.at({3}), 11);
  Tensor tr = t.transpose(0, 1);
  EXPECT_EQ(tr.shape(), Shape({4, 3}));
  EXPECT_EQ(tr.at({3, 1}), 7);
  Tensor c = tr.contiguous();
  EXPECT_TRUE(c.is_contiguous());
  EXPECT_EQ(c.to_vector(), tr.to_vector());
  EXPECT_EQ(c.to_vector()[1], 4);
  s.set({0, 0}, 100);  // writes through to t
  EXPECT_EQ(t.at({0, 1}), 100);
  EXPECT_THROW(t.slice(0, 2, 4), Error);
  EXPECT_THROW(t.select(1, 4), Error);
}

TEST(Tensor, UnsqueezeAndFourDims) {
  Tensor t = iota({2, 3});
  Tensor u = t.unsqueeze(1);
  EXPECT_EQ(u.shape(), Shape({2, 1, 3}));
  EXPECT_EQ(u.at({1, 0, 2}), 5);
  Tensor f = iota({2, 3, 4, 5});
  EXPECT_EQ(f.at({1, 2, 3, 4}), 119);
  EXPECT_THROW(f.unsqueeze(0), Error);
  EXPECT_THROW(Tensor::empty({1, 1, 1, 1, 1}), Error);
}

TEST(Tensor, CopyBetweenDtypesAndStrides) {
  Tensor a = iota({3, 4}, DType::f64);
  Tensor b = Tensor::zeros({4, 3}, DType::f32);
  b.copy_from(a.transpose(0, 1));
  EXPECT_EQ(b.at({2, 1}), 6);
  Tensor c = a.to(DType::f32);
  EXPECT_EQ(c.dtype(), DType::f32);
  EXPECT_EQ(c.to_vector(), a.to_vector());
  EXPECT_THROW(b.copy_from(a), Error);
  EXPECT_THROW(a.data<float>(), Error);
}

TEST(Tensor, FillOnStridedView) {
  Tensor t = Tensor::zeros({3, 3});
  t.slice(1, 1, 2).fill(7);
  EXPECT_EQ(t.to_vector(), (std::vector<double>{0, 7, 0, 0, 7, 0, 0, 7, 0}));
}

TEST(Arena, TensorsComeFromTheActiveArenaAndResetReusesMemory) {
  Arena arena(1 << 12);
  void* first;
  {
    ArenaScope scope(&arena);
    Tensor t = Tensor::empty({100});
    first = t.raw();
    EXPECT_GE(arena.bytes_in_use(), 400u);
    Tensor big = Tensor::empty({10000});  // larger than a block: gets its own
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(big.raw()) % 64, 0u);
  }
  EXPECT_GE(arena.high_water(), 40400u);
  arena.reset();
  EXPECT_EQ(arena.bytes_in_use(), 0u);
  {
    ArenaScope scope(&arena);
    Tensor t = Tensor::empty({100});
    Tensor big = Tensor::empty({10000});  // fits in the consolidated block now
    EXPECT_NE(t.raw(), nullptr);
    (void)first;
  }
  {
    ArenaScope scope(&arena);
    ArenaScope heap(nullptr);
    std::size_t before = arena.bytes_in_use();
    Tensor t = Tensor::empty({100});
    EXPECT_EQ(arena.bytes_in_use(), before);
  }
}

#ifndef NDEBUG
TEST(Arena, StaleTensorIsRefusedInDebugBuilds) {
  Arena arena;
  Tensor t;
  {
    ArenaScope scope(&arena);
    t = Tensor::empty({4});
  }
  arena.reset();
  EXPECT_THROW(t.raw(), Error);
}
#endif

}  // namespace
}  // namespace heed
