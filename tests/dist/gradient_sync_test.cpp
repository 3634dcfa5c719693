// GradientSync's bucket order (dist/gradient_sync.h), in one process: the sums are MPI calls
// only between ranks, the order in which buckets start is the same code either way. Two
// ranks whose tapes fill the buckets in different orders must still start the same
// collectives in the same order, so a bucket starts only after every bucket before it.
#include <gtest/gtest.h>

#include <vector>

#include "heed/autograd/var.h"
#include "heed/dist/gradient_sync.h"
#include "heed/dist/world.h"
#include "heed/tensor/tensor.h"

namespace heed::dist {
namespace {

Var parameter(double value) {
  Var p(Tensor::full({4}, value, DType::f32), true);
  p.grad_buffer().fill(value);
  return p;
}

// Buckets go from the last parameter to the first: with one bucket per parameter, bucket 0
// holds b (index 1) and bucket 1 holds a (index 0). The forward pass reads b at entry 0 and
// a at entry 1, so the backward pass finishes a first: bucket 1 fills before bucket 0.
TEST(GradientSync, ABucketStartsOnlyAfterTheBucketsBeforeIt) {
  const World one;  // not under mpirun: no MPI
  Var a = parameter(1.0), b = parameter(2.0);
  GradientSync sync(one, {a, b}, /*bucket_bytes=*/0);
  ASSERT_EQ(sync.stats().buckets, 2u);
  sync.begin_step();
  sync.read(0, b);
  sync.read(1, a);
  sync.replayed(1);  // a is final: bucket 1 is full, but bucket 0 has not started
  EXPECT_TRUE(sync.stats().start_order.empty());
  sync.replayed(0);  // b is final: bucket 0 starts, then bucket 1
  EXPECT_EQ(sync.stats().start_order, (std::vector<std::size_t>{0, 1}));
  sync.finish();
  EXPECT_EQ(sync.stats().started_in_backward, 2u);
  EXPECT_EQ(a.grad_buffer().at({0}), 1.0);  // one rank: the sums are the gradients
  EXPECT_EQ(b.grad_buffer().at({0}), 2.0);
}

// In the fill order the buckets start at once; what finish() starts comes after them.
TEST(GradientSync, FinishStartsTheRestInOrder) {
  const World one;
  Var a = parameter(1.0), b = parameter(2.0), c = parameter(3.0);
  GradientSync sync(one, {a, b, c}, 0);  // buckets: 0 = c, 1 = b, 2 = a
  sync.begin_step();
  sync.read(0, a);
  sync.read(1, b);
  sync.read(2, c);
  sync.replayed(2);  // c final: bucket 0 starts
  EXPECT_EQ(sync.stats().start_order, (std::vector<std::size_t>{0}));
  sync.finish();
  EXPECT_EQ(sync.stats().start_order, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(sync.stats().started_in_backward, 1u);
}

}  // namespace
}  // namespace heed::dist
