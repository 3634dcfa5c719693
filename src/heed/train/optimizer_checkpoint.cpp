#include "heed/train/optimizer_checkpoint.h"

#include "heed/store/checkpoint.h"

namespace heed {

namespace {
const std::string kOptimizerPrefix = "optimizer.";
}  // namespace

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
