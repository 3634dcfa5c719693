#pragma once
// Optimizer: updates parameters from their gradients, with PyTorch's exact semantics.
// A parameter with no gradient yet is skipped (as torch skips p.grad is None) and its state
// does not advance. The state (per-parameter step counts and buffers such as Adam's moments)
// is exported as named tensors, so a checkpoint resumes exactly.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/tensor/safetensors.h"

namespace heed {

class Optimizer {
 public:
  Optimizer(std::vector<Var> params, double lr);
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  // One update of every parameter that has a gradient.
  void step();
  // Zeroes every parameter's gradient (torch 1.13's zero_grad(set_to_none=False)).
  void zero_grad() const;

  double lr() const { return lr_; }
  void set_lr(double lr);
  const std::vector<Var>& params() const { return params_; }
  // Steps taken by parameter i (0 before its first update).
  std::int64_t step_count(std::size_t i) const { return state_.at(i).step; }

  // State as named tensors: "state.<i>.step" (shape {1}, f64) and "state.<i>.<buffer>"
  // (the parameter's shape and dtype) for parameter i in constructor order; parameters
  // never updated have no entries.
  NamedTensors state_dict() const;
  // Replaces the state with what state_dict() gave. Unknown names, missing buffers, wrong
  // shapes and indices out of range are refused (heed::Error) before anything changes.
  void load_state_dict(const NamedTensors& state);

 protected:
  struct ParamState {
    std::int64_t step = 0;
    std::vector<Tensor> buffers;  // as buffer_names(); allocated on the first update
  };
  // Names of the per-parameter buffers, e.g. {"exp_avg", "exp_avg_sq"}.
  virtual std::vector<std::string> buffer_names() const = 0;
  // Updates parameter p (contiguous, with contiguous gradient g); s.step is already
  // incremented and s.buffers allocated (zero-filled) when first is true.
  virtual void update(const Var& p, const Tensor& g, ParamState& s, bool first) = 0;

 private:
  std::vector<Var> params_;
  std::vector<ParamState> state_;
  double lr_;
};

// True when n elements are worth a parallel loop (below, thread start-up costs more).
inline bool worth_parallel(std::int64_t n) { return n >= (std::int64_t{1} << 15); }

// The fp32 parameters' storage as kernels::Bf16WeightScope regions: a training step opens
// the scope over its forward and backward (the parameters change only in the update after
// them), so that bf16 products round each weight once per step.
std::vector<std::pair<const float*, std::size_t>> weight_regions(const std::vector<Var>& params);

}  // namespace heed
