#pragma once
// Seq2Seq: the interface decode/ and train/ use. Every text model is an EncoderDecoder
// (encoder_decoder.h); an Ensemble (decode/ensemble.h) is one too.
//
//   Encoded enc = model.encode(src);                 // once per batch
//   DecoderState s = model.initial_state(enc);
//   for t: auto out = model.step(y_prev, s, enc);   // logits (B, V), alpha (B, m) or undefined
//   Var logits = model.forward(src, tgt_in);         // teacher forcing, all steps: (B*n, V)
//   Var real = model.forward_packed(src, tgt_in);    // only the real positions: (R, V)
//
// The precision of the products is the model's own (set_compute_type, models/compute_type.h):
// training's mixed precision is told to the model once, not passed to these calls.
//
// Every tensor in Encoded and DecoderState is batch-major (dimension 0 is the batch row), so
// decoders reorder or replicate hypotheses generically (see reorder_rows).
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "heed/autograd/var.h"
#include "heed/models/compute_type.h"
#include "heed/models/decoder.h"
#include "heed/models/model_config.h"
#include "heed/models/token_batch.h"
#include "heed/nn/module.h"

namespace heed {

// Saliency maps of teacher-forced targets (docs/MODELS.md#saliency), each (B, n, m) row-major:
// for target position t and source position j, the norm of the gradient of log p(y_t | y_<t, x)
// with respect to the source embedding e(x_j), and that gradient dotted with e(x_j)
// (gradient x input, signed). Padding positions hold 0.
struct Saliency {
  std::vector<double> norm;
  std::vector<double> grad_x_input;
};

struct StepOutput {
  // (B, V); for a copy model (model.copy) the log-probabilities over the vocabulary extended
  // by the sentences' source words instead, (B, V + Encoded::extended): the decoders read
  // both alike (a softmax of log-probabilities is the distribution itself).
  Var logits;
  Var alpha;   // (B, m); undefined without attention
  Var p_gen;   // copy models: (B), the probability of generating rather than copying
  // Set when the source batch carried a vocabulary shortlist (TokenBatch::shortlist) and the
  // model computed its logits over the shortlist's K ids only: logits are then (B, K), column
  // c the logit of target id shortlist->ids[c] (sorted; every other id has probability 0).
  // The decoders map the columns back (decode_common.h); copy models never set it.
  std::shared_ptr<const OutputShortlist> shortlist;
};

// Teacher forcing for a copy model's loss (autograd/copy_loss_op.h), at the real target
// positions (R rows, as forward_packed): the vocabulary logits (R, V), the logit of p_gen (R)
// and the attention weights (R, m) each position's step computed.
struct CopyOutputs {
  Var logits;
  Var gate;
  Var alpha;
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
  // (row b*n + t). alphas, if given, receives the attention weights (B, n, m). The products
  // run at compute_type().pass(training()), forward and (when recorded) backward.
  virtual Var forward(const TokenBatch& src, const TokenBatch& tgt_in,
                      Tensor* alphas = nullptr) const = 0;

  // Teacher forcing like forward(), but logits only at each row's real positions
  // t < tgt_in.lengths[b]: (R, V), R = the sum of the lengths, rows in (b, t) order (see
  // target_rows). The loss needs nothing more, and the output layers skip the padding.
  // This default cuts forward()'s result; the models override it to cut before their
  // output layers.
  virtual Var forward_packed(const TokenBatch& src, const TokenBatch& tgt_in) const;

  // A copy model's teacher forcing (model.copy): what its loss reads. src must carry its copy
  // map (TokenBatch::copy_ids). This default refuses (no copy attention).
  virtual CopyOutputs forward_copy(const TokenBatch& src, const TokenBatch& tgt_in) const;
  // Whether the model copies (model.copy): its step returns extended log-probabilities.
  bool copies() const { return config_.copy; }

  // Saliency of the targets tgt_out (B, n) row-major, y_1..y_n, fed as tgt_in: one backward
  // pass per target position. It accumulates into the parameters' gradient buffers and clears
  // them, so it must not run while the model trains or computes another saliency. This
  // default refuses (an ensemble has no single source embedding).
  virtual Saliency saliency(const TokenBatch& src, const TokenBatch& tgt_in,
                            std::span<const std::int32_t> tgt_out) const;

  // Every parameter the model computes with: its own, or an ensemble's members'. Decoding
  // freezes these (decode/frozen_model.h gives each a kernels::PackedWeight).
  virtual std::vector<Var> weights() const { return parameters(); }

  // Teacher forcing's attention per layer and head where the model has several (the
  // Transformer: its encoder-decoder attention and both self-attentions,
  // models/attention_heads.h); empty for a model with one attention (forward's alphas) or
  // none. heed show draws them, heed serve sends them.
  virtual AttentionHeads attention_heads(const TokenBatch& src, const TokenBatch& tgt_in) const {
    (void)src, (void)tgt_in;
    return {};
  }

  // Whether step() returns attention weights (false for noattn).
  virtual bool has_attention() const { return true; }
  // The most steps a decode may take: the positions the decoder can place (a Transformer's
  // learned positions, model.max_positions); 0 = any. An ensemble: its members' fewest.
  virtual std::int64_t max_output_steps() const;
  std::int64_t tgt_vocab() const { return config_.tgt_vocab; }

  // How the products run (models/compute_type.h): set once by whoever builds or loads the
  // model (the trainer, the translator, the benchmark); fp32 throughout until then.
  void set_compute_type(const ComputeType& type) { compute_type_ = type; }
  const ComputeType& compute_type() const { return compute_type_; }

  // Random draws in training (dropout, hard attention's samples); set by the trainer.
  void set_rng(Rng* rng) { rng_ = rng; }
  // Hard attention in training: each decoder step appends its sample's log-probability and
  // entropy here (the REINFORCE loss reads them, train/reinforce.h); null: not recorded.
  void set_hard_attention_trace(HardAttentionTrace* trace) { trace_ = trace; }
  // Hard attention in training: while on, the decoders read the soft expectation instead of
  // a sample (training.hard_soft_mix; Xu et al. 2015, sec. 4.1): nothing drawn or recorded.
  void set_hard_attention_expectation(bool on) { hard_expectation_ = on; }
  // Teacher-forced training: each decoder step appends its attention weights (B, m), with
  // their gradient, here (the doubly stochastic penalty reads them); null: not recorded.
  void set_attention_trace(std::vector<Var>* alphas) { alphas_ = alphas; }
  // Teacher-forced training of a model with a CTC head (model.ctc_weight): the encoder stores
  // the head's logits (B, m, V) here; null: not computed.
  void set_ctc_trace(Var* logits) { ctc_logits_ = logits; }
  // The logits (B, m, V) of the model's CTC head over its encoder's annotations of src
  // (model.ctc_weight; docs/MODELS.md#joint-ctc-training), for rescoring decoded hypotheses;
  // undefined for a model without a head.
  virtual Tensor ctc_logits(const TokenBatch& src) const {
    (void)src;
    return {};
  }

 protected:
  Rng* rng() const { return rng_; }
  HardAttentionTrace* hard_attention_trace() const { return trace_; }
  bool hard_attention_expectation() const { return hard_expectation_; }
  std::vector<Var>* attention_trace() const { return alphas_; }
  Var* ctc_trace() const { return ctc_logits_; }
  ModelConfig config_;

 private:
  Rng* rng_ = nullptr;
  HardAttentionTrace* trace_ = nullptr;
  bool hard_expectation_ = false;
  std::vector<Var>* alphas_ = nullptr;
  Var* ctc_logits_ = nullptr;
  ComputeType compute_type_;
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
StepOutput reorder_rows(const StepOutput& out, std::span<const std::int64_t> rows);
Tensor reorder_rows(const Tensor& t, std::span<const std::int64_t> rows);

}  // namespace heed
