#pragma once
// A resumable training checkpoint: a module's parameters under their names (as
// store/checkpoint.h writes them) plus the optimizer's state under "optimizer."
// (e.g. "optimizer.state.3.exp_avg"), and metadata (the caller's step, epoch, config...).
#include <string>

#include "heed/nn/module.h"
#include "heed/tensor/safetensors.h"
#include "heed/train/optimizer.h"

namespace heed {

void save_checkpoint(const std::string& path, const Module& module, const Optimizer& optimizer,
                     const Metadata& metadata = {});
// Restores both strictly (nothing changes when either part does not fit); returns the
// metadata.
Metadata load_checkpoint(const std::string& path, Module& module, Optimizer& optimizer);

}  // namespace heed
