#pragma once
// Seq2Seq: the interface every encoder–decoder model implements, and the one that decode/
// and train/ use (the reference's encode / step / forward in bench/torch_ref/models.py).
//
//   Encoded enc = model.encode(src);                 // once per batch
//   DecoderState s = model.initial_state(enc);
//   for t: auto out = model.step(y_prev, s, enc);   // logits (B, V), alpha (B, m) or undefined
//   Var logits = model.forward(src, tgt_in);         // teacher forcing, all steps: (B*n, V)
//   Var real = model.forward_packed(src, tgt_in);    // only the real positions: (R, V)
//
// Every tensor in Encoded and DecoderState is batch-major (dimension 0 is the batch row), so
// decoders reorder or replicate hypotheses generically (see reorder_rows).
#include <cstdint>
#include <span>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/models/model_config.h"
#include "heed/nn/module.h"

namespace heed {

// Token ids shared by every model and vocabulary.
constexpr std::int32_t kPad = 0, kBos = 1, kEos = 2, kUnk = 3;

// A padded batch of token ids, row-major (B, len), PAD after each row's length.
struct TokenBatch {
  std::int64_t batch = 0;
  std::int64_t len = 0;
  std::vector<std::int32_t> ids;
  std::vector<std::int64_t> lengths;
};

// The recurrent state between decoder steps; its meaning is the model's own
// (Bahdanau, noattn: {s}; Luong: {h_1..h_L, c_1..c_L, h~}).
struct DecoderState {
  std::vector<Var> parts;
};

// Throws heed::Error (prefixed by what) unless the batch is consistent: ids.size() = batch *
// len, lengths in [1, len] (or 0 when empty_rows_ok), every id in [0, vocab).
void check_token_batch(const TokenBatch& batch, std::int64_t vocab, const char* what,
                       bool empty_rows_ok = false);

struct Encoded {
  Var annotations;                   // H (B, m, dk); undefined for noattn
  Var keys;                          // attention keys, precomputed once per batch (may be undefined)
  Var fixed_context;                 // noattn: c (B, dk)
  std::vector<std::int64_t> lengths; // source lengths (B)
  // The decoder's initial state, computed with the encoder (the reference's encode returns
  // (enc, state0)); initial_state() hands it out.
  DecoderState initial;
};

struct StepOutput {
  Var logits;  // (B, V)
  Var alpha;   // (B, m); undefined without attention
};

class Seq2Seq : public Module {
 public:
  explicit Seq2Seq(const ModelConfig& config) : config_(config) {}
  const ModelConfig& config() const { return config_; }

  virtual Encoded encode(const TokenBatch& src) const = 0;
  virtual DecoderState initial_state(const Encoded& enc) const = 0;
  // One decoder step from the previous tokens y_prev (B).
  virtual StepOutput step(std::span<const std::int32_t> y_prev, DecoderState& state,
                          const Encoded& enc) const = 0;
  // Teacher forcing over tgt_in (B, n): logits for every position, (B*n, V) row-major
  // (row b*n + t). alphas, if given, receives the attention weights (B, n, m).
  virtual Var forward(const TokenBatch& src, const TokenBatch& tgt_in,
                      Tensor* alphas = nullptr) const = 0;

  // Teacher forcing like forward(), but logits only at each row's real positions
  // t < tgt_in.lengths[b]: (R, V), R = the sum of the lengths, rows in (b, t) order (see
  // target_rows). The loss needs nothing more, and the output layers skip the padding.
  // This default cuts forward()'s result; the models override it to cut before their
  // output layers.
  virtual Var forward_packed(const TokenBatch& src, const TokenBatch& tgt_in) const;

  // Every parameter the model computes with: its own, or an ensemble's members'. Decoding
  // freezes these (kernels/frozen_weights.h).
  virtual std::vector<Var> weights() const { return parameters(); }

  // Whether step() returns attention weights (false for noattn).
  virtual bool has_attention() const { return true; }
  std::int64_t tgt_vocab() const { return config_.tgt_vocab; }

  // Random draws in training (dropout); set by the trainer.
  void set_rng(Rng* rng) { rng_ = rng; }

 protected:
  Rng* rng() const { return rng_; }
  ModelConfig config_;

 private:
  Rng* rng_ = nullptr;
};

// The real positions of a padded (B, n) batch as row indices b * n + t, t < lengths[b], in
// that order; and a (B, n) row-major array (the targets) cut to them.
std::vector<std::int64_t> target_rows(const TokenBatch& tgt);
std::vector<std::int32_t> pack_targets(const std::vector<std::int32_t>& padded,
                                       const TokenBatch& tgt);

// Rows `rows` of every batch-major tensor (for beam search: replicate sentences k times,
// then follow back-pointers). Undefined parts stay undefined.
Encoded reorder_rows(const Encoded& enc, std::span<const std::int64_t> rows);
DecoderState reorder_rows(const DecoderState& state, std::span<const std::int64_t> rows);
Tensor reorder_rows(const Tensor& t, std::span<const std::int64_t> rows);

}  // namespace heed
