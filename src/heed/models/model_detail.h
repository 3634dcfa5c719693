#pragma once
// Small helpers the model files share (not part of the public API).
#include <cstdint>
#include <span>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/base/random.h"
#include "heed/models/run_mode.h"
#include "heed/models/seq2seq.h"
#include "heed/nn/attention_layer.h"

namespace heed::model_detail {

std::vector<std::int32_t> to_int32(const std::vector<std::int64_t>& lengths);

// Inverted dropout with mode.dropout when training (then mode.rng is required), else x itself.
Var maybe_dropout(const Var& x, const RunMode& mode);

// Checks tgt_in against the source batch: same batch size, ids inside the vocabulary.
void check_target(const TokenBatch& tgt_in, std::int64_t batch, std::int64_t vocab,
                  const char* model);

// Checks a step's inputs: one previous token per row inside the vocabulary, a state of
// parts state parts with that many rows, an encoding of that many rows.
void check_step(std::span<const std::int32_t> y_prev, const DecoderState& state,
                std::size_t parts, const Encoded& enc, std::int64_t vocab, const char* model);

// The checks of model.score, all here. check_score: any score, under the size constraints of its
// registry entry (autograd/attention_score.h). check_additive_score: for a decoder with
// Bahdanau's additive attention only; uses says so ("bahdanau uses additive (mlp) attention")
// and hint follows the score's name in the message.
void check_score(const ModelConfig& config);
void check_additive_score(const ModelConfig& config, const char* uses, const char* hint);
// The longest source the score allows: max_src_len for a score with a weight row per source
// position, else 0 (any length).
std::int64_t score_max_length(const ModelConfig& config);

// Sets a's hard-attention fields from model.attention (mode, hard_eval).
void set_attention_mode(AttentionConfig& a, const ModelConfig& config);
// One attention step in mode: samples from mode.rng when the attention is hard and training,
// and appends the sample's log-probability and entropy to mode.trace (if any).
Attention::Output attend(const Attention& attention, const Var& q, const Encoded& enc,
                         const RunMode& mode);

// (B, n, m) buffer for teacher-forced attention weights, and row t of it from alpha (B, m).
Tensor alloc_alphas(std::int64_t B, std::int64_t n, std::int64_t m, DType dtype);
void store_alpha(Tensor& alphas, const Var& alpha, std::int64_t t);

// The final state of layer l, direction d (0 forward, 1 reverse) from h_n (L*dirs, B, H).
Var final_state(const Var& h_n, int layer, int direction, int directions);

}  // namespace heed::model_detail
