#pragma once
// make_model: builds the encoder–decoder a ModelConfig describes, after checking it.
#include <memory>

#include "heed/base/random.h"
#include "heed/models/model_config.h"
#include "heed/models/seq2seq.h"
#include "heed/tensor/dtype.h"

namespace heed {

// Throws heed::Error naming the offending field and what is expected unless make_model can
// build config (kind, positive sizes, cells, score, local-p window, dropout range, layer
// counts the model supports, tie_embeddings only when the sizes agree).
void validate_model_config(const ModelConfig& config);

// Bahdanau, Luong or NoAttention ("bahdanau" | "luong" | "noattn"), initialised from rng.
std::unique_ptr<Seq2Seq> make_model(const ModelConfig& config, Rng& rng,
                                    DType dtype = DType::f32);

}  // namespace heed
