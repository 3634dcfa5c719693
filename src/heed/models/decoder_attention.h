#pragma once
// A decoder's attention step, soft or hard: the attention built in the mode model.attention
// asks for, and one step that samples and records when the attention is hard and training.
// And what an attending decoder keeps of its attention between steps, at the end of its
// DecoderState (docs/MODELS.md#location-aware-attention, #coverage, #windowed-decoding): the
// previous step's weights alpha_{t-1} (B, m), zeros before the first step, which the location
// features and windowed decoding read; with coverage, the coverage vector
// c_t = sum_{t' < t} alpha_t' (B, m), zeros at first. Batch-major, so beam search reorders them
// with the rest of the state.
#include "heed/autograd/var.h"
#include "heed/models/decoder.h"
#include "heed/models/model_config.h"
#include "heed/models/run_mode.h"
#include "heed/nn/attention_layer.h"

namespace heed {

// Sets a's hard-attention fields from model.attention (mode, hard_eval) and its location
// features from model.location_filters, location_width and coverage.
void set_attention_mode(AttentionConfig& a, const ModelConfig& config);

// The state parts the attention adds (1, or 2 with coverage), and their first values for the
// encoding enc, appended to parts.
std::size_t attention_state_parts(const Attention& attention);
void append_attention_state(std::vector<Var>& parts, const Attention& attention,
                            const Encoded& enc);

// One attention step for queries q with the attention's state at state.parts[at...]: the key
// term of the location features, the window of enc.window when decoding, then attend (below);
// the state takes the step's weights (and the new coverage).
Attention::Output attend(const Attention& attention, const Var& q, DecoderState& state,
                         std::size_t at, const Encoded& enc, const RunMode& mode);

// Windowed decoding: each row's positions [from, to) around the median of its previous weights
// alpha_prev (B, m) (a row of zeros: every position of its m).
void attention_window(const Tensor& alpha_prev, const AttentionWindow& window,
                      std::vector<std::int64_t>& from, std::vector<std::int64_t>& to);

// One attention step in mode: samples from mode.rng when the attention is hard and training,
// and appends the sample's log-probability and entropy to mode.trace (if any).
Attention::Output attend(const Attention& attention, const Var& q, const Encoded& enc,
                         const RunMode& mode, const AttentionStepExtras& extras = {});

}  // namespace heed
