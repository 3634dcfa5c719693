#pragma once
// Loading a model directory's weights file with the checks that tie it to the directory
// (what load_model_dir and heed info do).
#include <string>

#include "heed/config/train_config.h"
#include "heed/data/vocabulary.h"
#include "heed/nn/module.h"
#include "heed/tensor/safetensors.h"

namespace heed {

// Loads the weights file at path into model (built from dir's config.yaml), after checking
// what the file's metadata says against the directory: the model kind first (weights of
// another kind may even fit by shape), then, once the weights fit, the vocabularies'
// checksums (store/vocabulary_checksums.h; src is null for a kind without a source side).
// A directory or a torch.save file at path is named as such. Returns the file's metadata.
Metadata load_model_weights(Module& model, const std::string& path, const std::string& dir,
                            ModelKind kind, const Vocabulary* src, const Vocabulary& tgt);

}  // namespace heed
