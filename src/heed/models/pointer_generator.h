#pragma once
// Copy attention, the pointer-generator of See et al. (2017), "Get To The Point", sec. 2.2
// (docs/MODELS.md#copy-attention), as an option of the text models that attend
// (model.copy: bahdanau, luong, transformer). Beside the decoder's output layer, a gate reads
// the same features:
//   p_gen_t = sigmoid(w . features_t + b)          (parameters p_gen.weight (1, F), p_gen.bias)
//   P(w) = p_gen_t P_vocab(w) + (1 - p_gen_t) sum_{j: x_j = w} alpha_tj
// over the target vocabulary extended by the sentence's source words it lacks
// (data/copy_map.h). For Bahdanau's decoder the features are [s_t; c_t; e(y_{t-1})], See's
// three inputs exactly; for Luong's, the attentional state h~_t = tanh(W_c [c_t; h_t]); for
// the Transformer's, the decoder's output (after its final layer norm), and alpha its
// attention output (model.alignment_layer's encoder-decoder weights, the heads averaged
// unless model.alignment_head names one).
// EncoderDecoder (encoder_decoder.h) owns the gate; the loss is autograd/copy_loss_op.h.
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/models/model_config.h"
#include "heed/models/token_batch.h"
#include "heed/nn/linear.h"

namespace heed {

// Throws heed::Error unless model.copy can work with the rest of config: a text kind whose
// decoder attends, soft attention, untied embeddings.
void check_copy_config(const ModelConfig& config);

// The gate's linear map F -> 1, drawn from rng after everything else of the model.
std::unique_ptr<Linear> make_copy_gate(std::int64_t feature_dim, Rng& rng, DType dtype);

// The gate's logit (...) for features (..., F): p_gen = sigmoid of it.
Var copy_gate_logit(const Linear& gate, const Var& features, kernels::MatmulPrecision precision);

// Throws heed::Error (naming model) unless src carries a copy map that fits it: batch * len
// ids, each in [0, vocab + extended).
void check_copy_source(const TokenBatch& src, std::int64_t vocab, const char* model);

// The copy map of the sentence of each real target position (target_rows order), R * m ids:
// what copy_loss_with_count reads beside the packed logits.
std::vector<std::int32_t> copy_ids_of_rows(const TokenBatch& src, const TokenBatch& tgt_in);

}  // namespace heed
