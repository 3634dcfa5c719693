#include "heed/autograd/memory_hop_op.h"

#include <cmath>
#include <gtest/gtest.h>

#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "support/gradcheck.h"

namespace heed {
namespace {
using testing::all_close;
using testing::gradcheck;
using testing::random_var;

std::shared_ptr<const std::vector<std::int32_t>> counts(std::vector<std::int32_t> n) {
  return std::make_shared<const std::vector<std::int32_t>>(std::move(n));
}

TEST(MemoryHop, SoftmaxOverTheStorysSlotsOnly) {
  // One story of 2 statements in 3 slots: scores u.m = 1 and 0; the third slot is ignored.
  Var u(Tensor::from({1, 2}, {1, 0}, DType::f64));
  Var m(Tensor::from({3, 2}, {1, 5, 0, 7, 9, 9}, DType::f64));
  Var c(Tensor::from({3, 2}, {2, 0, 0, 4, 100, 100}, DType::f64));
  const MemoryHop h = memory_hop(u, m, c, counts({2}), 3, false);
  const double e = std::exp(1.0), p0 = e / (e + 1), p1 = 1 / (e + 1);
  EXPECT_TRUE(all_close(h.p, Tensor::from({1, 3}, {p0, p1, 0}, DType::f64)));
  EXPECT_TRUE(all_close(h.o.value(), Tensor::from({1, 2}, {2 * p0, 4 * p1}, DType::f64)));
  const MemoryHop linear = memory_hop(u, m, c, counts({2}), 3, true);
  EXPECT_TRUE(all_close(linear.p, Tensor::from({1, 3}, {1, 0, 0}, DType::f64)));
  EXPECT_TRUE(all_close(linear.o.value(), Tensor::from({1, 2}, {2, 0}, DType::f64)));
}

TEST(MemoryHop, PaddedSoftmaxCountsTheEmptySlots) {
  // The same story in a memory padded to 5 slots: 3 empty slots of score 0 (the unused third
  // slot is one of them) join the denominator and read nothing.
  Var u(Tensor::from({1, 2}, {1, 0}, DType::f64));
  Var m(Tensor::from({3, 2}, {1, 5, 0, 7, 9, 9}, DType::f64));
  Var c(Tensor::from({3, 2}, {2, 0, 0, 4, 100, 100}, DType::f64));
  const MemoryHop h = memory_hop(u, m, c, counts({2}), 3, false, 5);
  const double e = std::exp(1.0), p0 = e / (e + 4), p1 = 1 / (e + 4);
  EXPECT_TRUE(all_close(h.p, Tensor::from({1, 3}, {p0, p1, 0}, DType::f64)));
  EXPECT_TRUE(all_close(h.o.value(), Tensor::from({1, 2}, {2 * p0, 4 * p1}, DType::f64)));
  // Scores all below 0: the empty slots hold most of the weight (the largest score is theirs).
  Var v(Tensor::from({1, 2}, {-2, 0}, DType::f64));
  const MemoryHop low = memory_hop(v, m, c, counts({2}), 3, false, 3);
  const double q0 = std::exp(-2.0) / (std::exp(-2.0) + 2), q1 = 1 / (std::exp(-2.0) + 2);
  EXPECT_TRUE(all_close(low.p, Tensor::from({1, 3}, {q0, q1, 0}, DType::f64)));
  // pad_to equal to the real slots changes nothing; linear start ignores the padding.
  const MemoryHop full = memory_hop(u, m, c, counts({3}), 3, false, 3);
  const MemoryHop plain = memory_hop(u, m, c, counts({3}), 3, false);
  EXPECT_TRUE(all_close(full.p, plain.p));
  const MemoryHop linear = memory_hop(u, m, c, counts({2}), 3, true, 50);
  EXPECT_TRUE(all_close(linear.p, Tensor::from({1, 3}, {1, 0, 0}, DType::f64)));
}

TEST(MemoryHop, EmptyStoryReadsNothing) {
  Var u = random_var({2, 3}, 1);
  Var m = random_var({4, 3}, 2), c = random_var({4, 3}, 3);
  const MemoryHop h = memory_hop(u, m, c, counts({0, 2}), 2, false);
  const std::vector<double> o = h.o.value().to_vector();
  EXPECT_EQ(o[0], 0.0);
  EXPECT_EQ(o[1], 0.0);
  EXPECT_EQ(o[2], 0.0);
  EXPECT_NE(o[3], 0.0);
}

TEST(MemoryHop, GradientCheck) {
  Var u = random_var({3, 4}, 4);
  Var m = random_var({9, 4}, 5), c = random_var({9, 4}, 6);
  for (bool linear : {false, true})
    EXPECT_TRUE(gradcheck([&] { return memory_hop(u, m, c, counts({3, 1, 0}), 3, linear).o; },
                          {u, m, c}));
  EXPECT_TRUE(gradcheck([&] { return memory_hop(u, m, c, counts({3, 1, 0}), 3, false, 7).o; },
                        {u, m, c}));
}

TEST(MemoryHop, RejectsShapesThatDisagree) {
  Var u = random_var({2, 3}, 7);
  Var m = random_var({4, 3}, 8), c = random_var({4, 3}, 9), short_c = random_var({3, 3}, 10);
  EXPECT_THROW(memory_hop(u, m, short_c, counts({1, 1}), 2, false), Error);
  EXPECT_THROW(memory_hop(u, m, c, counts({1}), 2, false), Error);
  EXPECT_THROW(memory_hop(u, m, c, counts({3, 1}), 2, false), Error);
  EXPECT_THROW(memory_hop(u, m, c, counts({1, 1}), 2, false, 1), Error);  // padded below S
}

}  // namespace
}  // namespace heed
