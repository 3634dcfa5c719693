// Var's gradient buffers (autograd/var.h): grad_buffer zero-filled on first use,
// grad_buffer_unzeroed for a kernel that overwrites a new buffer, zero_grad; the zeroing is
// split across the threads for large buffers and gives the same zeros on any thread count.
#include "heed/autograd/var.h"

#include <gtest/gtest.h>

#include "heed/kernels/gemm.h"

namespace heed {
namespace {

TEST(Var, GradBufferUnzeroedIsNewOnceThenTheSameBuffer) {
  Var x(Tensor::full({4, 5}, 2.0), true);
  bool first = false;
  Tensor& g = x.grad_buffer_unzeroed(first);
  EXPECT_TRUE(first);
  EXPECT_EQ(g.shape(), Shape({4, 5}));
  g.fill(3.0);
  Tensor& again = x.grad_buffer_unzeroed(first);
  EXPECT_FALSE(first);
  EXPECT_EQ(again.data<float>(), g.data<float>());
  EXPECT_EQ(x.grad_buffer().data<float>()[7], 3.0f);  // grad_buffer keeps what is there
  x.clear_grad();
  x.grad_buffer_unzeroed(first);
  EXPECT_TRUE(first);
}

TEST(Var, LargeGradientsAreZeroedOnTwoThreads) {
  const kernels::ScopedNumThreads two(2);
  const std::int64_t n = 100003;  // not a multiple of the 16-element pieces
  Var x(Tensor::full({n}, 1.0), true);
  bool first = false;
  Tensor& g = x.grad_buffer_unzeroed(first);
  ASSERT_TRUE(first);
  g.fill(5.0);
  x.zero_grad();
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(x.grad().data<float>()[i], 0.0f) << i;
  Var y(Tensor::full({n}, 1.0), true);
  const Tensor& gy = y.grad_buffer();
  for (std::int64_t i = 0; i < n; ++i) ASSERT_EQ(gy.data<float>()[i], 0.0f) << i;
}

}  // namespace
}  // namespace heed
