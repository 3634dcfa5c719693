#pragma once
// Module weights in safetensors files, by PyTorch parameter name. (A training checkpoint,
// weights plus optimizer state, is train/optimizer_checkpoint.h: training sits above store/.)
#include <string>

#include "heed/nn/module.h"
#include "heed/tensor/safetensors.h"

namespace heed {

// Writes every parameter of module under its dotted name (PyTorch state_dict keys).
void save_module(const Module& module, const std::string& path, const Metadata& metadata = {});

// Copies the tensors of path into module's parameters by name, converting the dtype.
// Strict: missing names, unexpected names and shape mismatches are one heed::Error listing
// all of them, and nothing is changed. Returns the file's metadata.
Metadata load_into(Module& module, const std::string& path);
// The same from tensors already loaded (file names the source in messages).
void load_into(Module& module, const NamedTensors& tensors, const std::string& source);

}  // namespace heed
