#pragma once
// Module weights and training checkpoints in safetensors files, by PyTorch parameter name.
#include <string>

#include "heed/nn/module.h"
#include "heed/tensor/safetensors.h"
#include "heed/train/optimizer.h"

namespace heed {

// Writes every parameter of module under its dotted name (PyTorch state_dict keys).
void save_module(const Module& module, const std::string& path, const Metadata& metadata = {});

// Copies the tensors of path into module's parameters by name, converting the dtype.
// Strict: missing names, unexpected names and shape mismatches are one heed::Error listing
// all of them, and nothing is changed. Returns the file's metadata.
Metadata load_into(Module& module, const std::string& path);
// The same from tensors already loaded (file names the source in messages).
void load_into(Module& module, const NamedTensors& tensors, const std::string& source);

// A resumable checkpoint: the module's parameters under their names plus the optimizer
// state under "optimizer." (e.g. "optimizer.state.3.exp_avg"), and metadata (the caller's
// step, epoch, config...).
void save_checkpoint(const std::string& path, const Module& module, const Optimizer& optimizer,
                     const Metadata& metadata = {});
// Restores both strictly; returns the metadata.
Metadata load_checkpoint(const std::string& path, Module& module, Optimizer& optimizer);

}  // namespace heed
