// kernels::set_num_threads and ScopedNumThreads (kernels/gemm.h): the count every kernel's
// parallel region reads, and its restoration at the end of a scope.
#include <gtest/gtest.h>

#include <omp.h>

#include <stdexcept>

#include "heed/kernels/gemm.h"

namespace heed {
namespace {

TEST(NumThreads, ScopedNumThreadsRestoresTheCountBefore) {
  const int before = kernels::num_threads();
  kernels::set_num_threads(2);
  {
    const kernels::ScopedNumThreads one(1);
    EXPECT_EQ(kernels::num_threads(), 1);
    EXPECT_EQ(omp_get_max_threads(), 1);  // what oneDNN's and heed's parallel regions read
    {
      const kernels::ScopedNumThreads three(3);
      EXPECT_EQ(kernels::num_threads(), 3);
    }
    EXPECT_EQ(kernels::num_threads(), 1);
  }
  EXPECT_EQ(kernels::num_threads(), 2);
  {
    const kernels::ScopedNumThreads same(2);  // no change
    EXPECT_EQ(kernels::num_threads(), 2);
  }
  EXPECT_EQ(kernels::num_threads(), 2);
  // An exception leaving the scope restores it too.
  try {
    const kernels::ScopedNumThreads one(1);
    throw std::runtime_error("leaves the scope");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(kernels::num_threads(), 2);
  kernels::set_num_threads(before);
}

}  // namespace
}  // namespace heed
