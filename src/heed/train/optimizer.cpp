#include "heed/train/optimizer.h"

#include <charconv>
#include <map>

#include "heed/tensor/arena.h"

namespace heed {

Optimizer::Optimizer(std::vector<Var> params, double lr)
    : params_(std::move(params)), state_(params_.size()), lr_(0.0) {
  for (std::size_t i = 0; i < params_.size(); ++i) {
    HEED_CHECK(params_[i].defined(), "optimizer: parameter ", i, " is undefined");
    HEED_CHECK(params_[i].value().is_contiguous(), "optimizer: parameter ", i,
               " is not contiguous");
    for (std::size_t j = 0; j < i; ++j)
      HEED_CHECK(!params_[i].same_node(params_[j]), "optimizer: parameter ", i,
                 " is the same as parameter ", j);
  }
  set_lr(lr);
}

void Optimizer::set_lr(double lr) {
  HEED_CHECK(lr >= 0.0, "optimizer: invalid learning rate ", lr);
  lr_ = lr;
}

void Optimizer::zero_grad() const {
  for (const auto& p : params_)
    if (p.has_grad()) p.zero_grad();
}

void Optimizer::step() {
  ArenaScope heap(nullptr);  // state outlives any batch arena
  const auto names = buffer_names();
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const Var& p = params_[i];
    if (!p.has_grad()) continue;
    Tensor g = p.grad();
    HEED_CHECK(g.shape() == p.shape() && g.dtype() == p.dtype(), "optimizer: parameter ", i,
               " has a gradient of shape ", g.shape().str(), " for a value of shape ",
               p.shape().str());
    if (!g.is_contiguous()) g = g.contiguous();
    ParamState& s = state_[i];
    const bool first = s.step == 0;
    if (first) {
      s.buffers.clear();
      for (std::size_t b = 0; b < names.size(); ++b)
        s.buffers.push_back(Tensor::zeros(p.shape(), p.dtype()));
    }
    ++s.step;
    update(p, g, s, first);
  }
}

NamedTensors Optimizer::state_dict() const {
  NamedTensors out;
  const auto names = buffer_names();
  ArenaScope heap(nullptr);
  for (std::size_t i = 0; i < params_.size(); ++i) {
    const ParamState& s = state_[i];
    if (s.step == 0) continue;
    const std::string prefix = "state." + std::to_string(i) + ".";
    out.emplace_back(prefix + "step", Tensor::from({1}, {static_cast<double>(s.step)},
                                                    DType::f64));
    for (std::size_t b = 0; b < names.size(); ++b)
      out.emplace_back(prefix + names[b], s.buffers[b].clone());
  }
  return out;
}

void Optimizer::load_state_dict(const NamedTensors& state) {
  const auto names = buffer_names();
  std::map<std::size_t, std::map<std::string, const Tensor*>> by_param;
  for (const auto& [name, t] : state) {
    const std::string prefix = "state.";
    const auto dot = name.find('.', prefix.size());
    HEED_CHECK(name.rfind(prefix, 0) == 0 && dot != std::string::npos,
               "optimizer state: unexpected entry '", name, "' (expected state.<index>.<field>)");
    std::size_t i = 0;
    const char* last = name.data() + dot;
    auto [ptr, ec] = std::from_chars(name.data() + prefix.size(), last, i);
    HEED_CHECK(ec == std::errc() && ptr == last, "optimizer state: bad index in '", name, "'");
    HEED_CHECK(i < params_.size(), "optimizer state: '", name, "' refers to parameter ", i,
               " but the optimizer has ", params_.size());
    const std::string field = name.substr(dot + 1);
    bool known = field == "step";
    for (const auto& n : names) known = known || field == n;
    HEED_CHECK(known, "optimizer state: unexpected entry '", name, "'");
    HEED_CHECK(t.defined(), "optimizer state: '", name, "' is undefined");
    if (field == "step") {
      HEED_CHECK(t.numel() == 1 && t.item() >= 1 && t.item() == static_cast<std::int64_t>(t.item()),
                 "optimizer state: '", name, "' must hold one positive integer");
    } else {
      HEED_CHECK(t.shape() == params_[i].shape(), "optimizer state: '", name, "' has shape ",
                 t.shape().str(), ", parameter ", i, " has ", params_[i].shape().str());
    }
    HEED_CHECK(by_param[i].emplace(field, &t).second, "optimizer state: '", name,
               "' appears twice");
  }
  for (const auto& [i, fields] : by_param) {
    HEED_CHECK(fields.count("step"), "optimizer state: no state.", i, ".step");
    for (const auto& n : names)
      HEED_CHECK(fields.count(n), "optimizer state: no state.", i, ".", n);
  }
  // Everything checked: replace the state.
  ArenaScope heap(nullptr);
  for (auto& s : state_) s = ParamState{};
  for (const auto& [i, fields] : by_param) {
    ParamState& s = state_[i];
    s.step = static_cast<std::int64_t>(fields.at("step")->item());
    for (const auto& n : names) s.buffers.push_back(fields.at(n)->to(params_[i].dtype()));
  }
}

std::vector<std::pair<const float*, std::size_t>> weight_regions(const std::vector<Var>& params) {
  std::vector<std::pair<const float*, std::size_t>> out;
  for (const Var& p : params)
    if (p.value().dtype() == DType::f32 && p.value().is_contiguous())
      out.emplace_back(p.value().data<float>(), static_cast<std::size_t>(p.value().numel()));
  return out;
}

}  // namespace heed
