// Every attention score against the PyTorch reference (tests/golden/attention_*): the
// reference's AdditiveAttention and GlobalAttention for dot, scaled_dot, general, concat,
// location, mlp and local-p. The weights are loaded by their PyTorch names; with
// mask = lengths, K = keys(H), (context, alpha) = forward(q, H, K), the outputs and the
// gradients of L = sum_X sum(out.X * seed.X) with respect to every parameter, q and H (which
// reaches H through the keys and through the context) must match within
// |a - ref| <= tol * (1 + max |ref|) per tensor, in float64 and in float32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <ostream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "heed/autograd/elementwise.h"
#include "heed/autograd/reduce.h"
#include "heed/autograd/tape.h"
#include "heed/nn/attention.h"
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
  std::vector<std::int64_t> lengths() const {
    std::vector<std::int64_t> out;
    for (double l : golden_.get("in.lengths").to_vector())
      out.push_back(static_cast<std::int64_t>(l));
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

struct AttentionCase {
  std::string file;  // tests/golden/<file>.safetensors
  AttentionConfig config;
};
void PrintTo(const AttentionCase& c, std::ostream* os) { *os << c.file; }

AttentionConfig make_config(const std::string& score, std::int64_t dq, std::int64_t dk,
                            std::int64_t attn_dim = 0) {
  AttentionConfig c;
  c.score = score;
  c.query_dim = dq;
  c.key_dim = dk;
  c.attn_dim = attn_dim;
  return c;
}

// The constructors of tools/make_goldens.py, one per golden file.
std::vector<AttentionCase> attention_cases() {
  AttentionConfig location = make_config("location", 4, 6);
  location.max_src_len = 7;
  AttentionConfig local = make_config("general", 4, 6);
  local.local_p = true;
  local.window = 2;
  return {
      {"attention_additive", make_config("mlp", 4, 6, 5)},  // AdditiveAttention(4, 6, 5)
      {"attention_dot", make_config("dot", 6, 6)},
      {"attention_scaled_dot", make_config("scaled_dot", 6, 6)},
      {"attention_general", make_config("general", 4, 6)},
      {"attention_concat", make_config("concat", 4, 6, 5)},
      {"attention_location", location},
      {"attention_mlp", make_config("mlp", 4, 6, 5)},
      {"attention_local_p_general", local},
  };
}

class GoldenAttention : public ::testing::TestWithParam<std::tuple<AttentionCase, DType>> {};

TEST_P(GoldenAttention, MatchesPyTorchReference) {
  const auto& [spec, dtype] = GetParam();
  GoldenCase c(spec.file, dtype);
  Rng rng(7);
  Attention att(spec.config, rng, dtype);
  att.eval();
  c.load(att);
  Var q = c.input("q"), H = c.input("H");
  const std::vector<std::int64_t> lengths = c.lengths();
  Var K = att.keys(H);
  Attention::Output r = att.forward(q, H, K, lengths);
  c.check({{"context", r.context}, {"alpha", r.alpha}});
}

INSTANTIATE_TEST_SUITE_P(Scores, GoldenAttention,
                         ::testing::Combine(::testing::ValuesIn(attention_cases()),
                                            ::testing::Values(DType::f64, DType::f32)),
                         [](const auto& info) {
                           return std::get<0>(info.param).file + "_" +
                                  std::string(dtype_name(std::get<1>(info.param)));
                         });

}  // namespace
}  // namespace heed
