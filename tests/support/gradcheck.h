#pragma once
// Finite-difference gradient checks in double precision.
//
// gradcheck(fn, inputs) runs y = fn() once with the tape, back-propagates a fixed random
// seed gradient R (so the check covers the whole Jacobian, not just a sum), then compares
// every element of every input's analytic gradient with the central difference
// (<R, fn(x + h e_i)> - <R, fn(x - h e_i)>) / 2h. Inputs are Vars holding float64 values
// (perturbed in place and restored); fn must read them afresh on every call.
#include <functional>
#include <vector>

#include <gtest/gtest.h>

#include "heed/autograd/var.h"

namespace heed::testing {

struct GradcheckOptions {
  double step = 1e-6;
  double atol = 1e-7;
  double rtol = 1e-5;
  std::uint64_t seed = 7;
};

::testing::AssertionResult gradcheck(const std::function<Var()>& fn, std::vector<Var> inputs,
                                     GradcheckOptions options = {});

// A float64 tensor of the given shape with entries uniform in [lo, hi), from a fixed seed.
Tensor random_tensor(const Shape& shape, std::uint64_t seed, double lo = -1.0, double hi = 1.0);
// n floats uniform in [lo, hi), from a fixed seed (for kernel tests on raw buffers).
std::vector<float> random_floats(std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);
// Var(random_tensor(...), requires_grad = true).
Var random_var(const Shape& shape, std::uint64_t seed, double lo = -1.0, double hi = 1.0);

// Element-wise |a - b| <= atol + rtol * |b| with a message naming the first mismatch.
::testing::AssertionResult all_close(const Tensor& a, const Tensor& b, double atol = 1e-6,
                                     double rtol = 1e-5);

}  // namespace heed::testing
