#pragma once
// Module: a named tree of parameters, PyTorch style. A module registers its parameters and
// child modules by name; named_parameters() yields dotted paths
// ("encoder.weight_ih_l0_reverse") identical to the PyTorch reference's state_dict keys,
// so weights move between heed and PyTorch by name.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/base/random.h"

namespace heed {

class Module {
 public:
  Module() = default;
  virtual ~Module() = default;
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;

  std::vector<std::pair<std::string, Var>> named_parameters() const;
  std::vector<Var> parameters() const;
  // The parameter at a dotted path; throws heed::Error naming the path if absent.
  Var parameter(const std::string& path) const;
  std::int64_t num_parameters() const;

  void train(bool on = true);
  void eval() { train(false); }
  bool training() const { return training_; }
  void zero_grad() const;

 protected:
  // A trainable parameter holding value; its gradient buffer is allocated now, on the heap,
  // so backward passes inside an arena accumulate into long-lived memory.
  Var register_parameter(const std::string& name, Tensor value);
  void register_module(const std::string& name, Module& child);

 private:
  void collect(const std::string& prefix, std::vector<std::pair<std::string, Var>>& out) const;
  std::vector<std::pair<std::string, Var>> params_;
  std::vector<std::pair<std::string, Module*>> children_;
  bool training_ = true;
};

// PyTorch's default initialisation for Linear/RNN weights: uniform(-1/sqrt(fan), 1/sqrt(fan)).
Tensor init_uniform(const Shape& shape, double bound, Rng& rng, DType dtype);

}  // namespace heed
