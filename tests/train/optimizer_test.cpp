// SGD, Adam and AdamW against torch.optim (tests/golden/{adam,adamw,sgd_*}.safetensors):
// five steps on two parameters with fresh gradients each step, in float64 and float32.
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <memory>

#include <gtest/gtest.h>

#include "heed/train/adam.h"
#include "heed/store/checkpoint.h"
#include "heed/train/sgd.h"
#include "support/golden.h"

namespace heed {
namespace {

using testing::load_golden;
using MakeOptimizer = std::function<std::unique_ptr<Optimizer>(std::vector<Var>)>;

const char* const kNames[] = {"p0", "p1"};

std::vector<Var> golden_params(const SafeTensorsFile& g, DType dtype) {
  std::vector<Var> params;
  for (const char* n : kNames) params.emplace_back(g.get(std::string("param.") + n).to(dtype), true);
  return params;
}

void set_grads(const SafeTensorsFile& g, const std::vector<Var>& params, int step) {
  for (std::size_t i = 0; i < params.size(); ++i)
    params[i].grad_buffer().copy_from(
        g.get("in.grad.step" + std::to_string(step) + "." + kNames[i]));
}

void expect_step(const SafeTensorsFile& g, const std::vector<Var>& params, int step, double tol) {
  for (std::size_t i = 0; i < params.size(); ++i) {
    const std::string name = "out.step" + std::to_string(step) + "." + kNames[i];
    testing::expect_close_to_golden(params[i].value(), g.get(name), name, tol);
  }
}

void run_against_golden(const std::string& golden, const MakeOptimizer& make, DType dtype,
                        double tol) {
  SCOPED_TRACE(golden + (dtype == DType::f32 ? " f32" : " f64"));
  const SafeTensorsFile g = load_golden(golden);
  auto params = golden_params(g, dtype);
  auto opt = make(params);
  for (int k = 1; k <= 5; ++k) {
    set_grads(g, params, k);
    opt->step();
    expect_step(g, params, k, tol);
  }
  // The exported state matches torch's after step 5 (SGD has no step in torch).
  const NamedTensors state = opt->state_dict();
  for (const auto& [name, ref] : testing::golden_group(g, "out.state.")) {
    bool found = false;
    for (const auto& [n, t] : state) {
      if ("state." + name != n) continue;
      found = true;
      testing::expect_close_to_golden(t, ref, n, tol);
    }
    EXPECT_TRUE(found) << "state." << name << " missing from state_dict()";
  }
}

AdamOptions adam_options(double lr, double b1, double b2, double eps, double wd) {
  AdamOptions o;
  o.lr = lr;
  o.beta1 = b1;
  o.beta2 = b2;
  o.eps = eps;
  o.weight_decay = wd;
  return o;
}

// Hyper-parameters as in tools/make_goldens.py.
const MakeOptimizer kAdam = [](std::vector<Var> p) {
  return std::make_unique<Adam>(std::move(p), adam_options(0.01, 0.9, 0.999, 1e-8, 0.1));
};
const MakeOptimizer kAdamW = [](std::vector<Var> p) {
  return std::make_unique<AdamW>(std::move(p), adam_options(0.01, 0.8, 0.99, 1e-6, 0.1));
};
const MakeOptimizer kSgdMomentum = [](std::vector<Var> p) {
  return std::make_unique<Sgd>(std::move(p), SgdOptions{0.1, 0.9, 0.1, 0.01, false});
};
const MakeOptimizer kSgdNesterov = [](std::vector<Var> p) {
  return std::make_unique<Sgd>(std::move(p), SgdOptions{0.1, 0.9, 0.0, 0.01, true});
};

TEST(OptimizerGolden, AdamMatchesTorch) {
  run_against_golden("adam", kAdam, DType::f64, 1e-12);
  run_against_golden("adam", kAdam, DType::f32, 1e-5);
}

TEST(OptimizerGolden, AdamWMatchesTorch) {
  run_against_golden("adamw", kAdamW, DType::f64, 1e-12);
  run_against_golden("adamw", kAdamW, DType::f32, 1e-5);
}

TEST(OptimizerGolden, SgdMomentumWithDampeningMatchesTorch) {
  run_against_golden("sgd_momentum", kSgdMomentum, DType::f64, 1e-12);
  run_against_golden("sgd_momentum", kSgdMomentum, DType::f32, 1e-5);
}

TEST(OptimizerGolden, SgdNesterovMatchesTorch) {
  run_against_golden("sgd_nesterov", kSgdNesterov, DType::f64, 1e-12);
  run_against_golden("sgd_nesterov", kSgdNesterov, DType::f32, 1e-5);
}

// Two steps, state through a safetensors file into a fresh optimizer, three more steps:
// the same parameters as five uninterrupted steps.
void resume_matches(const std::string& golden, const MakeOptimizer& make) {
  SCOPED_TRACE(golden);
  const SafeTensorsFile g = load_golden(golden);
  const std::string file = (std::filesystem::temp_directory_path() /
                            ("heed_optim_resume_" + std::to_string(::getpid()) + ".safetensors"))
                               .string();
  auto params = golden_params(g, DType::f64);
  {
    auto opt = make(params);
    for (int k = 1; k <= 2; ++k) {
      set_grads(g, params, k);
      opt->step();
    }
    save_safetensors(file, opt->state_dict());
  }
  auto opt = make(params);
  opt->load_state_dict(load_safetensors(file).tensors);
  std::filesystem::remove(file);
  EXPECT_EQ(opt->step_count(0), 2);
  for (int k = 3; k <= 5; ++k) {
    set_grads(g, params, k);
    opt->step();
    expect_step(g, params, k, 1e-12);
  }
}

TEST(OptimizerState, ResumeFromSavedStateIsExact) {
  resume_matches("adam", kAdam);
  resume_matches("adamw", kAdamW);
  resume_matches("sgd_momentum", kSgdMomentum);
  resume_matches("sgd_nesterov", kSgdNesterov);
}

TEST(OptimizerState, LoadRefusesBadStateAndChangesNothing) {
  std::vector<Var> params = {Var(Tensor::zeros({2, 2}, DType::f64), true),
                             Var(Tensor::zeros({3}, DType::f64), true)};
  Adam opt(params, AdamOptions{});
  params[0].grad_buffer().fill(1.0);
  opt.step();
  const NamedTensors good = opt.state_dict();
  ASSERT_EQ(good.size(), 3u);  // parameter 1 had no gradient: no state
  const Tensor step = Tensor::from({1}, {1}, DType::f64);
  const Tensor t22 = Tensor::zeros({2, 2}, DType::f64);
  const std::vector<std::pair<const char*, NamedTensors>> bad = {
      {"unknown field", {{"state.0.step", step}, {"state.0.exp_avg", t22},
                         {"state.0.exp_avg_sq", t22}, {"state.0.momentum", t22}}},
      {"bad prefix", {{"foo", step}}},
      {"bad index", {{"state.x.step", step}}},
      {"index out of range", {{"state.2.step", step}}},
      {"missing buffer", {{"state.0.step", step}, {"state.0.exp_avg", t22}}},
      {"missing step", {{"state.0.exp_avg", t22}, {"state.0.exp_avg_sq", t22}}},
      {"wrong shape", {{"state.0.step", step}, {"state.0.exp_avg", t22},
                       {"state.0.exp_avg_sq", Tensor::zeros({4}, DType::f64)}}},
      {"fractional step", {{"state.0.step", Tensor::from({1}, {1.5}, DType::f64)},
                           {"state.0.exp_avg", t22}, {"state.0.exp_avg_sq", t22}}},
  };
  for (const auto& [label, state] : bad) {
    SCOPED_TRACE(label);
    EXPECT_THROW(opt.load_state_dict(state), Error);
    EXPECT_EQ(opt.step_count(0), 1);
    EXPECT_EQ(opt.state_dict()[1].second.to_vector(), good[1].second.to_vector());
  }
  opt.load_state_dict({});  // an empty state is a fresh start
  EXPECT_EQ(opt.step_count(0), 0);
  EXPECT_TRUE(opt.state_dict().empty());
}

TEST(Optimizer, SkipsParametersWithoutGradient) {
  Var a(Tensor::from({2}, {1, 2}, DType::f64), true);
  Var b(Tensor::from({2}, {3, 4}, DType::f64), true);
  Sgd opt({a, b}, SgdOptions{0.5, 0.9, 0.0, 0.0, false});
  a.grad_buffer().fill(1.0);
  opt.step();
  EXPECT_EQ(a.value().to_vector(), (std::vector<double>{0.5, 1.5}));
  EXPECT_EQ(b.value().to_vector(), (std::vector<double>{3, 4}));
  EXPECT_EQ(opt.step_count(0), 1);
  EXPECT_EQ(opt.step_count(1), 0);
  opt.zero_grad();
  EXPECT_EQ(a.grad().to_vector(), (std::vector<double>{0, 0}));
}

TEST(Optimizer, RefusesBadOptions) {
  Var a(Tensor::zeros({2}), true);
  EXPECT_THROW(Sgd({a}, SgdOptions{-1.0, 0.0, 0.0, 0.0, false}), Error);
  EXPECT_THROW(Sgd({a}, SgdOptions{0.1, 0.0, 0.0, 0.0, true}), Error);   // nesterov, no momentum
  EXPECT_THROW(Sgd({a}, SgdOptions{0.1, 0.9, 0.1, 0.0, true}), Error);   // nesterov, dampening
  EXPECT_THROW(Adam({a}, adam_options(0.1, 1.0, 0.999, 1e-8, 0.0)), Error);
  EXPECT_THROW(Adam({a}, adam_options(0.1, 0.9, 0.999, -1.0, 0.0)), Error);
  EXPECT_THROW(Sgd({a, a}, SgdOptions{}), Error);
  Sgd ok({a}, SgdOptions{});
  EXPECT_THROW(ok.set_lr(-0.1), Error);
  ok.set_lr(0.5);
  EXPECT_EQ(ok.lr(), 0.5);
}

TEST(Optimizer, LargeParametersTakeTheParallelPathWithTheSameResult) {
  // 1 << 16 elements crosses worth_parallel(); every element sees the same update as a
  // 1-element reference computed serially.
  const std::int64_t n = std::int64_t{1} << 16;
  Var big(Tensor::full({n}, 0.25, DType::f64), true);
  Var small(Tensor::full({1}, 0.25, DType::f64), true);
  Adam a({big}, adam_options(0.01, 0.9, 0.999, 1e-8, 0.1));
  Adam b({small}, adam_options(0.01, 0.9, 0.999, 1e-8, 0.1));
  for (int k = 0; k < 3; ++k) {
    big.grad_buffer().fill(0.1 * (k + 1));
    small.grad_buffer().fill(0.1 * (k + 1));
    a.step();
    b.step();
  }
  const double ref = small.value().item();
  const auto v = big.value().to_vector();
  for (std::int64_t i = 0; i < n; i += 997) ASSERT_EQ(v[static_cast<std::size_t>(i)], ref);
}

}  // namespace
}  // namespace heed
