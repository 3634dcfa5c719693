// GRU and LSTM layers against the PyTorch reference (tests/golden/{gru,lstm2,bigru_packed}):
// the weights are loaded by their PyTorch names, the forward outputs and the gradients of
// L = sum_X sum(out.X * seed.X) with respect to every parameter and float input must match
// within |a - ref| <= tol * (1 + max |ref|) per tensor, in float64 and in float32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "heed/autograd/elementwise.h"
#include "heed/autograd/reduce.h"
#include "heed/autograd/tape.h"
#include "heed/nn/rnn.h"
#include "heed/train/checkpoint.h"
#include "support/golden.h"

namespace heed {
namespace {
using testing::close_to_golden;
using testing::golden_group;
using testing::load_golden;

// float64 runs the same arithmetic as PyTorch up to summation order (observed differences
// <= 5e-16): 1e-9 still catches any float32 leaking into the f64 path. float32 rounds the
// inputs and weights to 24 bits and accumulates in single precision (observed <= 3e-7 on
// outputs and gradients), well within the 1e-5 for both.
double tolerance(DType dtype) { return dtype == DType::f64 ? 1e-9 : 1e-5; }

double max_abs_diff(const Tensor& a, const Tensor& b) {
  const auto x = a.to_vector(), y = b.to_vector();
  double worst = 0.0;
  for (std::size_t i = 0; i < x.size() && i < y.size(); ++i)
    worst = std::max(worst, std::abs(x[i] - y[i]));
  return worst;
}

// The golden file of one case and the dtype it runs in.
class GoldenCase {
 public:
  GoldenCase(const std::string& name, DType dtype)
      : name_(name), dtype_(dtype), golden_(load_golden(name)) {
    Tape::current().clear();
  }

  // in.<name> as a Var of the test's dtype that wants a gradient.
  Var input(const std::string& name) {
    Var v(golden_.get("in." + name).to(dtype_), true);
    inputs_.emplace_back(name, v);
    return v;
  }
  std::vector<std::int32_t> lengths() const {
    std::vector<std::int32_t> out;
    for (double l : golden_.get("in.lengths").to_vector()) out.push_back(static_cast<int>(l));
    return out;
  }
  // Loads param.* into module by name (strict: PyTorch's names must be ours exactly).
  void load(Module& module) {
    load_into(module, golden_group(golden_, "param."), name_);
    module_ = &module;
  }

  // Compares the outputs (every out.* of the file must be given), back-propagates L and
  // compares every grad.* of the file.
  void check(const std::vector<std::pair<std::string, Var>>& outputs) {
    const double tol = tolerance(dtype_);
    double out_err = 0.0, grad_err = 0.0;
    ASSERT_EQ(outputs.size(), golden_group(golden_, "out.").size()) << name_;
    std::vector<Var> terms;
    for (const auto& [name, v] : outputs) {
      const Tensor& ref = golden_.get("out." + name);
      EXPECT_TRUE(close_to_golden(v.value(), ref, name_ + " out." + name, tol));
      out_err = std::max(out_err, max_abs_diff(v.value(), ref));
      terms.push_back(sum(mul(v, Var(golden_.get("seed." + name).to(dtype_)))));
    }
    Var loss = add_n(terms);
    Tape::current().backward(loss);

    std::map<std::string, Var> wrt(inputs_.begin(), inputs_.end());
    for (const auto& [name, v] : module_->named_parameters()) wrt.emplace(name, v);
    const NamedTensors grads = golden_group(golden_, "grad.");
    ASSERT_EQ(grads.size(), wrt.size()) << name_ << ": a gradient is missing on one side";
    for (const auto& [name, ref] : grads) {
      auto it = wrt.find(name);
      ASSERT_NE(it, wrt.end()) << name_ << ": golden gradient of unknown " << name;
      ASSERT_TRUE(it->second.has_grad()) << name_ << ": no gradient reached " << name;
      EXPECT_TRUE(close_to_golden(it->second.grad(), ref, name_ + " grad." + name, tol));
      grad_err = std::max(grad_err, max_abs_diff(it->second.grad(), ref));
    }
    std::printf("[golden] %-28s %s  max |out - ref| %.3g  max |grad - ref| %.3g\n", name_.c_str(),
                std::string(dtype_name(dtype_)).c_str(), out_err, grad_err);
  }

  DType dtype() const { return dtype_; }

 private:
  std::string name_;
  DType dtype_;
  SafeTensorsFile golden_;
  std::vector<std::pair<std::string, Var>> inputs_;
  Module* module_ = nullptr;
};

class GoldenRnn : public ::testing::TestWithParam<DType> {};

TEST_P(GoldenRnn, GruWithInitialState) {
  GoldenCase c("gru", GetParam());
  Rng rng(1);
  GRU gru(3, 4, {.dtype = c.dtype()}, rng);
  c.load(gru);
  Var x = c.input("x"), h0 = c.input("h0");
  RnnOutput r = gru.forward(x, std::vector<std::int32_t>(3, 5), rng, h0);
  c.check({{"output", r.output}, {"h_n", r.h_n}});
}

TEST_P(GoldenRnn, TwoLayerLstmWithInitialState) {
  GoldenCase c("lstm2", GetParam());
  Rng rng(2);
  LSTM lstm(3, 5, {.num_layers = 2, .dtype = c.dtype()}, rng);
  c.load(lstm);
  Var x = c.input("x"), h0 = c.input("h0"), c0 = c.input("c0");
  RnnOutput r = lstm.forward(x, std::vector<std::int32_t>(3, 4), rng, h0, c0);
  c.check({{"output", r.output}, {"h_n", r.h_n}, {"c_n", r.c_n}});
}

// Packed sequences with unsorted lengths [3, 5, 2]: zero outputs at padding, the reverse
// direction starting at each sequence's own last token.
TEST_P(GoldenRnn, BidirectionalGruWithPadding) {
  GoldenCase c("bigru_packed", GetParam());
  Rng rng(3);
  GRU gru(3, 4, {.bidirectional = true, .dtype = c.dtype()}, rng);
  c.load(gru);
  Var x = c.input("x");
  RnnOutput r = gru.forward(x, c.lengths(), rng);
  c.check({{"output", r.output}, {"h_n", r.h_n}});
}

INSTANTIATE_TEST_SUITE_P(Dtypes, GoldenRnn, ::testing::Values(DType::f64, DType::f32),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

}  // namespace
}  // namespace heed
