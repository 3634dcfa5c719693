#pragma once
// Golden values from the PyTorch reference (tools/make_goldens.py and
// tools/make_model_goldens.py write tests/golden/; see its README for the naming: param.*,
// in.*, out.*, seed.*, grad.*).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "heed/autograd/var.h"
#include "heed/models/model_config.h"
#include "heed/models/seq2seq.h"
#include "heed/nn/module.h"
#include "heed/tensor/safetensors.h"

namespace heed::testing {

// tests/golden/<name>.safetensors (the folder is HEED_GOLDEN_DIR).
SafeTensorsFile load_golden(const std::string& name);

// The names (without .safetensors) of the golden files that start with prefix, sorted:
// golden_names("models_") lists every model golden.
std::vector<std::string> golden_names(const std::string& prefix);

// The tensors whose names start with prefix, prefix removed, in file order:
// golden_group(g, "param.") gives a module's weights under their PyTorch names.
NamedTensors golden_group(const SafeTensorsFile& golden, const std::string& prefix);

// Same shape and max |actual - ref| <= tol * (1 + max |ref|) over the tensor (any dtypes).
::testing::AssertionResult close_to_golden(const Tensor& actual, const Tensor& ref,
                                           const std::string& name, double tol = 1e-5);
// EXPECT_TRUE(close_to_golden(...)).
void expect_close_to_golden(const Tensor& actual, const Tensor& ref, const std::string& name,
                            double tol = 1e-5);

// max |a - b| over the common elements.
double max_abs_diff(const Tensor& a, const Tensor& b);

// The tolerance of the layer goldens: float64 runs the same arithmetic as PyTorch up to
// summation order (observed differences <= 5e-16), so 1e-9 still catches any float32
// leaking into the f64 path; float32 rounds the inputs and weights to 24 bits and
// accumulates in single precision (observed <= 3e-7), well within 1e-5.
double golden_tolerance(DType dtype);

// One layer golden file (gru, lstm2, attention_*, ...) and the dtype a test runs it in: the
// protocol of tools/make_goldens.py (outputs, then the gradients of
// L = sum_X sum(out.X * seed.X) with respect to every parameter and float input).
class GoldenCase {
 public:
  GoldenCase(const std::string& name, DType dtype);

  // in.<name> as a Var of the test's dtype that wants a gradient.
  Var input(const std::string& name);
  // in.lengths as integers.
  template <typename Int = std::int64_t>
  std::vector<Int> lengths() const {
    std::vector<Int> out;
    for (double l : golden_.get("in.lengths").to_vector()) out.push_back(static_cast<Int>(l));
    return out;
  }
  // Loads param.* into module by name (strict: PyTorch's names must be ours exactly).
  void load(Module& module);

  // Compares the outputs (every out.* of the file must be given) within golden_tolerance,
  // back-propagates L and compares every grad.* of the file.
  void check(const std::vector<std::pair<std::string, Var>>& outputs);

  DType dtype() const { return dtype_; }

 private:
  std::string name_;
  DType dtype_;
  SafeTensorsFile golden_;
  std::vector<std::pair<std::string, Var>> inputs_;
  Module* module_ = nullptr;
};

// ---- model goldens (models_*, tools/make_model_goldens.py)

// The ModelConfig of the reference constructor in the file's metadata "module"
// (models.build_model('luong', src_vocab=11, ..., score='general').double()), with the
// reference's defaults for what the call leaves out. Throws heed::Error on an argument it
// does not know, so a new generator option cannot be silently ignored.
ModelConfig golden_model_config(const SafeTensorsFile& golden);

// A tensor of integers stored as F64, as integers.
std::vector<std::int64_t> golden_ints(const Tensor& t);

// A (B, len) tensor of token ids stored as F64 as a TokenBatch with the given lengths.
TokenBatch golden_token_batch(const Tensor& ids, const std::vector<std::int64_t>& lengths);

}  // namespace heed::testing
