// Var's gradient buffers (autograd/var.h): grad_buffer zero-filled on first use,
// grad_buffer_unzeroed for a kernel that overwrites a new buffer, zero_grad (lazy); the
// zeroing is split across the threads for large buffers.
#include "heed/autograd/var.h"

#include <gtest/gtest.h>

#include "heed/autograd/matmul.h"
#include "heed/autograd/tape.h"
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

// zero_grad is lazy: the next grad() or grad_buffer() sees zeros, grad_buffer_unzeroed hands
// the buffer over as new.
TEST(Var, ZeroGradIsSeenByEveryAccessor) {
  Var x(Tensor::full({3}, 1.0), true);
  x.grad_buffer().fill(4.0);
  x.zero_grad();
  EXPECT_EQ(x.grad().data<float>()[2], 0.0f);
  x.grad_buffer().fill(4.0);
  x.zero_grad();
  EXPECT_EQ(x.grad_buffer().data<float>()[1], 0.0f);
  x.grad_buffer().fill(4.0);
  x.zero_grad();
  bool first = false;
  x.grad_buffer_unzeroed(first);
  EXPECT_TRUE(first);
  EXPECT_TRUE(x.has_grad());
}

// A parameter's gradient after zero_grad and a second backward is that backward's alone,
// whether a product overwrites it (linear's weight) or a sum accumulates into it (the bias).
TEST(Var, SecondStepAfterZeroGradIsNotAccumulated) {
  Var x(Tensor::from({2, 2}, {1, 2, 3, 4}), true);
  Var W(Tensor::from({1, 2}, {0.5, -1}), true), b(Tensor::from({1}, {0.25}), true);
  auto step = [&] {
    Tape::current().clear();
    Var y = linear(x, W, b);
    Tape::current().backward(y, Tensor::full({2, 1}, 1.0));
  };
  step();
  EXPECT_EQ(W.grad().data<float>()[0], 4.0f);  // 1 + 3
  EXPECT_EQ(b.grad().data<float>()[0], 2.0f);
  W.zero_grad();
  b.zero_grad();
  x.clear_grad();
  step();
  EXPECT_EQ(W.grad().data<float>()[0], 4.0f);
  EXPECT_EQ(W.grad().data<float>()[1], 6.0f);  // 2 + 4
  EXPECT_EQ(b.grad().data<float>()[0], 2.0f);
  Tape::current().clear();
}

}  // namespace
}  // namespace heed
