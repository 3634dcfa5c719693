#pragma once
// Decoder: the second part of every encoder–decoder (docs/MODELS.md#composition). A decoder is
// defined by ONE step: from the embedding of the previous output token, its recurrent state
// and the encoder's memory, the next state and the features its output layer turns into
// logits. Bahdanau's decoder attends before its recurrent step, Luong's after it, and the
// no-attention baseline is Bahdanau's decoder reading a fixed context instead of attending.
//
// Teacher-forced training, greedy and beam search, ensembles and the attention output all run
// that step (models/encoder_decoder.h drives it). Training may instead run a fused op over the
// whole target sequence (src/heed/fused/) where one is registered for the decoder's (cell,
// score) combination: accelerated() returns it, and a test proves it equal to the step loop.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/models/attention_heads.h"
#include "heed/models/encoder.h"
#include "heed/models/output_layer.h"
#include "heed/models/output_shortlist.h"
#include "heed/models/position_cache.h"
#include "heed/models/run_mode.h"
#include "heed/tensor/shape.h"

namespace heed {

// The recurrent state between decoder steps; its meaning is the decoder's own
// (noattn: {s}; Bahdanau: {s, alpha_{t-1}}; Luong: {h_1..h_L, c_1..c_L, h~, alpha_{t-1}}; with
// coverage the coverage vector last, decoder_attention.h). Batch-major, like Encoded.
// caches: the Transformer's self-attention keys and values of the earlier positions, one per
// layer (models/position_cache.h), reordered with the parts.
struct DecoderState {
  std::vector<Var> parts;
  std::vector<PositionCache> caches;
};

// Windowed decoding (docs/MODELS.md#windowed-decoding; Chorowski et al. 2015, sec. 2.3): each
// decoding step attends over the positions [p - before, p + after] only, p the median of the
// previous step's weights (the first step, with no previous weights, over every position).
// Off unless before >= 0 and after >= 0; teacher-forced training never windows.
struct AttentionWindow {
  std::int64_t before = -1;
  std::int64_t after = -1;
  bool on() const { return before >= 0 && after >= 0; }
};

// What the decoder's steps read from the encoder, prepared once per batch. Every tensor is
// batch-major (dimension 0 is the batch row), so decoding reorders or replicates hypotheses
// generically (reorder_rows in seq2seq.h).
struct Encoded {
  Var annotations;                    // H (B, m, dk)
  Var keys;                           // attention keys, precomputed once per batch (may be undefined)
  // A decoder that reads its keys by row (the Transformer's encoder-decoder attention) sets
  // keys_by_row: reorder_rows then shares keys instead of copying them, and key_rows (B, m)
  // says which row of keys, seen as (rows, width), hypothesis b's key j is (empty: row b m + j).
  bool keys_by_row = false;
  std::vector<std::int64_t> key_rows;
  Var fixed_context;                  // no attention: c (B, dk)
  std::vector<std::int64_t> lengths;  // source lengths (B)
  DecoderState initial;               // the decoder's first state
  AttentionWindow window;             // set by the decoding (greedy, beam search), else off
  // Copy attention: the source's copy map (TokenBatch::copy_ids, (B, m)) and its extended size.
  std::vector<std::int32_t> copy_ids;
  std::int64_t extended = 0;
  // A vocabulary shortlist (TokenBatch::shortlist): the output layer's rows for its ids,
  // gathered once per batch; step() then scores those rows only. Null: the whole vocabulary.
  // One for the whole batch, so reordering the rows shares it.
  std::shared_ptr<const OutputShortlist> shortlist;
};

class Decoder {
 public:
  virtual ~Decoder() = default;

  // e(y) for token ids laid out as shape ((B) or (B, n)), with the decoder's dropout.
  virtual Var embed(std::span<const std::int32_t> ids, const Shape& shape,
                    const RunMode& mode) const = 0;
  // The memory the steps read (keys, fixed context) and the first state.
  virtual Encoded prepare(const EncoderOutput& enc, const RunMode& mode) const = 0;
  // THE step: e (B, emb) = e(y_{t-1}); updates state and returns the features (B, F) the
  // output layer reads. alpha, if given, receives the attention weights (B, m).
  virtual Var step(const Var& e, DecoderState& state, const Encoded& enc, const RunMode& mode,
                   Var* alpha) const = 0;
  // Logits (..., V) from features (..., F), over any leading dimensions: the final
  // projection of what pre_output() makes of the features. The split lets a vocabulary
  // shortlist (models/output_shortlist.h) project onto a few of the V rows only.
  Var output(const Var& features, const RunMode& mode) const {
    return output_layer().forward(pre_output(features, mode), mode.precision);
  }
  // What the final projection reads (..., F'): Bahdanau's deep output dropout(tanh(W_o f));
  // Luong's and the Transformer's features themselves.
  virtual Var pre_output(const Var& features, const RunMode& mode) const = 0;
  // The final projection: (F') -> V logits.
  virtual const OutputLayer& output_layer() const = 0;

  // The whole teacher-forced sequence as one fused op, if one is registered for this
  // decoder's configuration in this mode: features (B, n, F) for E (B, n, emb), equal to
  // running step() n times. alphas, if given, receives the weights (B, n, m). With
  // mode.attention set (every step's weights wanted on the tape) it appends them, (B, m) a
  // step, as the step loop does, or returns nullopt.
  virtual std::optional<Var> accelerated(const Var& E, const Encoded& enc, const RunMode& mode,
                                         Tensor* alphas) const {
    (void)E, (void)enc, (void)mode, (void)alphas;
    return std::nullopt;
  }

  // Every head of every layer's encoder-decoder attention and self-attention under teacher
  // forcing, for a decoder with several (the Transformer's): the cross and decoder_self
  // entries. Empty: one attention only, the one step() returns.
  virtual AttentionHeads attention_heads(const Var& E, const Encoded& enc,
                                         const RunMode& mode) const {
    (void)E, (void)enc, (void)mode;
    return {};
  }

  virtual bool has_attention() const = 0;
  virtual std::size_t state_parts() const = 0;
  virtual std::int64_t vocab() const = 0;
  // F, the size of the features step() returns (copy attention's p_gen reads them).
  virtual std::int64_t feature_dim() const = 0;
  // First module: the target embedding (registered right after the encoder's embedding);
  // null for a decoder that reads the encoder's (the Transformer's model.share_embeddings).
  virtual NamedModules modules() = 0;
};

}  // namespace heed
