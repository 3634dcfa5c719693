#pragma once
// EncoderDecoder: a model composed of an Encoder and a Decoder (docs/MODELS.md#composition),
// and the one place that drives the decoder's step:
//   encode      the encoder's output, prepared by the decoder (keys, initial state)
//   step        e(y_{t-1}) -> decoder step -> output layer: one decoding step
//   forward     teacher forcing: the target embeddings at once, the step for t = 1..n (or the
//               decoder's registered fused op), the output layer over all positions at once
// Parameters are registered as the PyTorch reference lays them out: the source embedding, the
// target embedding, the rest of the encoder, the rest of the decoder.
#include <functional>
#include <memory>

#include "heed/models/decoder.h"
#include "heed/models/encoder.h"
#include "heed/models/seq2seq.h"
#include "heed/nn/embedding_layer.h"
#include "heed/nn/linear.h"

namespace heed {

class EncoderDecoder : public Seq2Seq {
 public:
  // copy_gate: copy attention's p_gen (model.copy; models/pointer_generator.h), else null.
  EncoderDecoder(const ModelConfig& config, std::unique_ptr<Encoder> encoder,
                 std::unique_ptr<Decoder> decoder, std::unique_ptr<Linear> copy_gate = nullptr);

  Encoded encode(const TokenBatch& src) const override;
  DecoderState initial_state(const Encoded& enc) const override { return enc.initial; }
  StepOutput step(std::span<const std::int32_t> y_prev, DecoderState& state,
                  const Encoded& enc) const override;
  Var forward(const TokenBatch& src, const TokenBatch& tgt_in,
              Tensor* alphas = nullptr) const override;
  Var forward_packed(const TokenBatch& src, const TokenBatch& tgt_in) const override;
  CopyOutputs forward_copy(const TokenBatch& src, const TokenBatch& tgt_in) const override;
  Saliency saliency(const TokenBatch& src, const TokenBatch& tgt_in,
                    std::span<const std::int32_t> tgt_out) const override;
  Tensor ctc_logits(const TokenBatch& src) const override;
  AttentionHeads attention_heads(const TokenBatch& src,
                                 const TokenBatch& tgt_in) const override;
  bool has_attention() const override { return decoder_->has_attention(); }

  // Off: teacher forcing always runs the step loop, never a fused op (the tests that prove
  // each fused op equal to the step compare the two).
  void set_accelerations(bool on) { accelerations_ = on; }

 private:
  RunMode mode() const {
    RunMode m{training(), rng(), config_.dropout, training() ? hard_attention_trace() : nullptr,
              compute_type().pass(training())};
    if (training()) {
      m.attention = attention_trace();
      m.ctc_logits = ctc_trace();
    }
    m.hard_expectation = training() && hard_attention_expectation();
    return m;
  }
  Encoded encode(const TokenBatch& src, const RunMode& m) const;
  // step() of a copy model: log-probabilities over the extended vocabulary, and p_gen.
  StepOutput copy_step(std::span<const std::int32_t> y_prev, DecoderState& state,
                       const Encoded& enc) const;
  // One step's logits (B, V) from the decoder's features: the output layer, or only its
  // rows in the batch's shortlist (the rest -inf).
  Var logits(const Var& features, const Encoded& enc, const RunMode& m) const;
  // The decoder's features for every target position, (B, n, F).
  Var features(const TokenBatch& src, const TokenBatch& tgt_in, Tensor* alphas,
               const RunMode& m) const;

  std::string name_;  // the model kind, for messages
  std::unique_ptr<Encoder> encoder_;
  std::unique_ptr<Decoder> decoder_;
  std::unique_ptr<Linear> copy_gate_;  // p_gen with model.copy, else null
  bool accelerations_ = true;
};

// A text model: source and target embeddings (made in that order, then the encoder, then the
// decoder: the reference's order of random draws), a TextEncoder over the source embeddings
// and the decoder make_decoder builds from the target embedding and the annotation size.
using DecoderMaker =
    std::function<std::unique_ptr<Decoder>(std::unique_ptr<Embedding>, std::int64_t)>;
std::unique_ptr<Seq2Seq> make_text_model(const ModelConfig& config, bool embedding_dropout,
                                         const DecoderMaker& make_decoder, Rng& rng, DType dtype);

}  // namespace heed
