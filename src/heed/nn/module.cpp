#include "heed/nn/module.h"

#include "heed/tensor/arena.h"

namespace heed {

Var Module::register_parameter(const std::string& name, Tensor value) {
  for (auto& [n, _] : params_) HEED_CHECK(n != name, "parameter '", name, "' registered twice");
  ArenaScope heap(nullptr);
  Var v(value.is_contiguous() ? value : value.contiguous(), true);
  v.grad_buffer();
  params_.emplace_back(name, v);
  return v;
}

void Module::register_module(const std::string& name, Module& child) {
  for (auto& [n, _] : children_) HEED_CHECK(n != name, "module '", name, "' registered twice");
  children_.emplace_back(name, &child);
}

void Module::collect(const std::string& prefix,
                     std::vector<std::pair<std::string, Var>>& out) const {
  for (auto& [n, v] : params_) out.emplace_back(prefix + n, v);
  for (auto& [n, m] : children_) m->collect(prefix + n + ".", out);
}

std::vector<std::pair<std::string, Var>> Module::named_parameters() const {
  std::vector<std::pair<std::string, Var>> out;
  collect("", out);
  return out;
}

std::vector<Var> Module::parameters() const {
  std::vector<Var> out;
  for (auto& [_, v] : named_parameters()) out.push_back(v);
  return out;
}

Var Module::parameter(const std::string& path) const {
  for (auto& [n, v] : named_parameters())
    if (n == path) return v;
  throw Error("no parameter named '" + path + "'");
}

std::int64_t Module::num_parameters() const {
  std::int64_t n = 0;
  for (auto& [_, v] : named_parameters()) n += v.value().numel();
  return n;
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [_, m] : children_) m->train(on);
}

void Module::zero_grad() const {
  for (auto& [_, v] : named_parameters()) v.zero_grad();
}

Tensor init_uniform(const Shape& shape, double bound, Rng& rng, DType dtype) {
  ArenaScope heap(nullptr);
  Tensor t = Tensor::empty(shape, dtype);
  dispatch(dtype, [&]<typename T>() {
    T* p = t.data<T>();
    for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(rng.uniform(-bound, bound));
  });
  return t;
}

}  // namespace heed
