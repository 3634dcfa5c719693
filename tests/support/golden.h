#pragma once
// Golden values from the PyTorch reference (tools/make_goldens.py writes tests/golden/; see
// its README for the naming: param.*, in.*, out.*, seed.*, grad.*).
#include <string>

#include <gtest/gtest.h>

#include "heed/tensor/safetensors.h"

namespace heed::testing {

// tests/golden/<name>.safetensors (the folder is HEED_GOLDEN_DIR).
SafeTensorsFile load_golden(const std::string& name);

// The tensors whose names start with prefix, prefix removed, in file order:
// golden_group(g, "param.") gives a module's weights under their PyTorch names.
NamedTensors golden_group(const SafeTensorsFile& golden, const std::string& prefix);

// Same shape and max |actual - ref| <= tol * (1 + max |ref|) over the tensor (any dtypes).
::testing::AssertionResult close_to_golden(const Tensor& actual, const Tensor& ref,
                                           const std::string& name, double tol = 1e-5);
// EXPECT_TRUE(close_to_golden(...)).
void expect_close_to_golden(const Tensor& actual, const Tensor& ref, const std::string& name,
                            double tol = 1e-5);

}  // namespace heed::testing
