#pragma once
// The checks of model.score (the attention score a model kind is built with), all here.
#include <cstdint>

#include "heed/models/model_config.h"

namespace heed {

// check_score: any score, under the size constraints of its registry entry
// (autograd/attention_score.h). check_additive_score: for a decoder with Bahdanau's additive
// attention only; uses says so ("bahdanau uses additive (mlp) attention") and hint follows the
// score's name in the message.
void check_score(const ModelConfig& config);
void check_additive_score(const ModelConfig& config, const char* uses, const char* hint);
// model.location_filters, location_width and coverage (docs/MODELS.md#location-aware-attention):
// the features need a decoder that attends with a score of the additive (tanh) form, mlp or
// concat, and the filters an odd width.
void check_location_features(const ModelConfig& config);

// The longest source the score allows: max_src_len for a score with a weight row per source
// position, else 0 (any length).
std::int64_t score_max_length(const ModelConfig& config);

}  // namespace heed
