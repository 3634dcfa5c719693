#pragma once
// A decoder's attention step, soft or hard: the attention built in the mode model.attention
// asks for, and one step that samples and records when the attention is hard and training.
#include "heed/autograd/var.h"
#include "heed/models/decoder.h"
#include "heed/models/model_config.h"
#include "heed/models/run_mode.h"
#include "heed/nn/attention_layer.h"

namespace heed {

// Sets a's hard-attention fields from model.attention (mode, hard_eval).
void set_attention_mode(AttentionConfig& a, const ModelConfig& config);

// One attention step in mode: samples from mode.rng when the attention is hard and training,
// and appends the sample's log-probability and entropy to mode.trace (if any).
Attention::Output attend(const Attention& attention, const Var& q, const Encoded& enc,
                         const RunMode& mode);

}  // namespace heed
