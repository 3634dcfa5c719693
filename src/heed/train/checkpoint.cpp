#include "heed/train/checkpoint.h"

#include <map>
#include <sstream>

namespace heed {

namespace {
const std::string kOptimizerPrefix = "optimizer.";

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}
}  // namespace

void save_module(const Module& module, const std::string& path, const Metadata& metadata) {
  NamedTensors tensors;
  for (const auto& [name, v] : module.named_parameters()) tensors.emplace_back(name, v.value());
  save_safetensors(path, tensors, metadata);
}

void load_into(Module& module, const NamedTensors& tensors, const std::string& source) {
  std::map<std::string, const Tensor*> given;
  for (const auto& [name, t] : tensors) given.emplace(name, &t);
  const auto params = module.named_parameters();
  std::vector<std::string> missing, mismatched, unexpected;
  std::map<std::string, bool> expected;
  for (const auto& [name, v] : params) {
    expected[name] = true;
    auto it = given.find(name);
    if (it == given.end())
      missing.push_back(name);
    else if (it->second->shape() != v.shape())
      mismatched.push_back(name + " " + it->second->shape().str() + " (model " +
                           v.shape().str() + ")");
  }
  for (const auto& [name, _] : tensors)
    if (!expected.count(name)) unexpected.push_back(name);
  if (!missing.empty() || !unexpected.empty() || !mismatched.empty()) {
    std::ostringstream os;
    os << "loading weights from '" << source << "':";
    if (!missing.empty()) os << " missing: " << join(missing) << ";";
    if (!unexpected.empty()) os << " unexpected: " << join(unexpected) << ";";
    if (!mismatched.empty()) os << " shape mismatch: " << join(mismatched) << ";";
    throw Error(os.str());
  }
  for (const auto& [name, v] : params) v.mutable_value().copy_from(*given.at(name));
}

Metadata load_into(Module& module, const std::string& path) {
  SafeTensorsFile file = load_safetensors(path);
  load_into(module, file.tensors, path);
  return file.metadata;
}

void save_checkpoint(const std::string& path, const Module& module, const Optimizer& optimizer,
                     const Metadata& metadata) {
  NamedTensors tensors;
  for (const auto& [name, v] : module.named_parameters()) {
    HEED_CHECK(name.rfind(kOptimizerPrefix, 0) != 0, "save_checkpoint: parameter name '", name,
               "' clashes with the optimizer prefix");
    tensors.emplace_back(name, v.value());
  }
  for (auto& [name, t] : optimizer.state_dict()) tensors.emplace_back(kOptimizerPrefix + name, t);
  save_safetensors(path, tensors, metadata);
}

Metadata load_checkpoint(const std::string& path, Module& module, Optimizer& optimizer) {
  SafeTensorsFile file = load_safetensors(path);
  NamedTensors weights, state;
  for (auto& [name, t] : file.tensors) {
    if (name.rfind(kOptimizerPrefix, 0) == 0)
      state.emplace_back(name.substr(kOptimizerPrefix.size()), t);
    else
      weights.emplace_back(name, t);
  }
  // Check both before changing either.
  NamedTensors old_state = optimizer.state_dict();
  try {
    optimizer.load_state_dict(state);
  } catch (const Error& e) {
    throw Error("checkpoint '" + path + "': " + e.what());
  }
  try {
    load_into(module, weights, path);
  } catch (const Error&) {
    optimizer.load_state_dict(old_state);
    throw;
  }
  return file.metadata;
}

}  // namespace heed
