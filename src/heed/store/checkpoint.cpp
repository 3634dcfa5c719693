#include "heed/store/checkpoint.h"

#include <map>
#include <sstream>

#include "heed/store/interop.h"
#include "heed/store/vocabulary_checksums.h"
#include "heed/store/weights_file.h"

namespace heed {

namespace {
// The first ten names, then how many more (a training state has hundreds of optimizer
// tensors: listing them all buries the point).
std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 10; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 10) out += " and " + std::to_string(names.size() - 10) + " more";
  return out;
}
}  // namespace

void save_module(const Module& module, const std::string& path, const Metadata& metadata) {
  NamedTensors tensors;
  for (const auto& [name, v] : module.named_parameters()) tensors.emplace_back(name, v.value());
  // A model directory's weights (the metadata names the model kind) record the checksums of
  // its vocabularies (store/vocabulary_checksums.h), whoever writes them: the trainer, heed
  // import.
  if (metadata.count(interop_keys::kKind)) {
    const std::string dir = model_dir_of_weights(path);
    if (!dir.empty()) {
      Metadata with_checksums = metadata;
      add_vocabulary_checksums(dir, with_checksums);
      save_safetensors(path, tensors, with_checksums);
      return;
    }
  }
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
    if (!unexpected.empty() && unexpected.front().rfind("optimizer.", 0) == 0)
      os << " this is a training state (weights and optimizer); load best.safetensors, "
            "last.safetensors or a step checkpoint instead";
    else
      os << " the weights are not those of this model (another model directory or config?)";
    throw Error(os.str());
  }
  for (const auto& [name, v] : params) v.mutable_value().copy_from(*given.at(name));
}

Metadata load_into(Module& module, const std::string& path) {
  SafeTensorsFile file = load_weights_file(path);
  load_into(module, file.tensors, path);
  return file.metadata;
}

}  // namespace heed
