#include "heed/train/encoder_decoder_task.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "heed/autograd/copy_loss_op.h"
#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/decode/frozen_model.h"
#include "heed/decode/greedy.h"
#include "heed/kernels/bf16_products.h"
#include "heed/models/model_registry.h"
#include "heed/models/pointer_generator.h"
#include "heed/store/model_dir.h"
#include "heed/train/data_parallel.h"
#include "heed/train/coverage_loss.h"
#include "heed/train/doubly_stochastic.h"
#include "heed/train/joint_ctc.h"

namespace heed {

void fill_token_batch(TokenBatch& tb, std::size_t rows, std::size_t len,
                      const std::vector<std::int32_t>& ids, const std::vector<std::int32_t>& lengths) {
  tb.batch = static_cast<std::int64_t>(rows);
  tb.len = static_cast<std::int64_t>(len);
  tb.ids.assign(ids.begin(), ids.end());
  tb.lengths.assign(lengths.begin(), lengths.end());
}

void EncoderDecoderTask::build_model() {
  const TrainingConfig& t = training();
  ModelConfig& mc = context_.config.model;
  set_data_sizes(mc);
  validate_model_config(mc);  // sizes against memory too, before anything is allocated
  model_ = context_.factory ? context_.factory(mc, context_.rng, t.dtype)
                            : heed::build_model(mc, context_.rng, t.dtype);
  model_->set_rng(&context_.rng);
  // training.precision: the model's training passes run their products at it; validation
  // decodes with fp32 weights (models/compute_type.h).
  model_->set_compute_type({.training = t.precision});
  hard_ = mc.attention_mode == AttentionMode::hard;
  if (hard_) model_->set_hard_attention_trace(&trace_);
  HEED_CHECK(t.doubly_stochastic == 0 ||
                 (takes_doubly_stochastic() && mc.attention_mode == AttentionMode::soft),
             "training.doubly_stochastic: the penalty is on the soft attention weights of "
             "model.kind image2seq (model.attention.mode soft), not ", enum_name(mc.kind),
             " with mode ", enum_name(mc.attention_mode), "; set it to 0");
  HEED_CHECK(t.coverage_loss == 0 ||
                 (model_->has_attention() && mc.attention_mode == AttentionMode::soft),
             "training.coverage_loss: the coverage loss is on soft attention weights, not ",
             enum_name(mc.kind), " with mode ", enum_name(mc.attention_mode), "; set it to 0");
  if (t.doubly_stochastic > 0 || t.coverage_loss > 0) model_->set_attention_trace(&alpha_trace_);
  if (mc.listener.ctc_weight > 0) model_->set_ctc_trace(&ctc_logits_);
  HEED_CHECK(t.hard_soft_mix == 0 || hard_, "training.hard_soft_mix: hard attention only");
  HEED_CHECK(!mc.copy || t.label_smoothing == 0, "training.label_smoothing: not supported with "
             "model.copy (copy attention's loss is the plain -log P(y)); set it to 0");
}

CrossEntropyResult EncoderDecoderTask::loss_of(const Batch& batch, double label_smoothing) {
  if (!model_->copies()) {
    // Logits at the real target positions only: the output layers skip the padding.
    Var logits = model_->forward_packed(src_, tgt_in_);
    return cross_entropy_with_count(logits, pack_targets(batch.tgt_out, tgt_in_), kPad,
                                    label_smoothing);
  }
  // Copy attention: the targets over the extended vocabulary (docs/MODELS.md#copy-attention).
  HEED_CHECK(batch.tgt_copy.size() == batch.tgt_out.size(), "copy attention: the batch "
             "carries no extended targets (a corpus built without copy maps)");
  const CopyOutputs o = model_->forward_copy(src_, tgt_in_);
  return copy_loss_with_count(o.logits, o.gate, o.alpha, copy_ids_of_rows(src_, tgt_in_),
                              pack_targets(batch.tgt_copy, tgt_in_), src_.extended, kPad);
}

void EncoderDecoderTask::begin_step(std::int64_t step) {
  const TrainingConfig& t = training();
  if (!hard_ || t.hard_soft_mix <= 0) return;
  // training.hard_soft_mix: whether this batch reads the soft expectation, from the seed and
  // the step alone, so every rank and a resumed run decide alike.
  Rng coin(t.seed ^ (0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(step)));
  expectation_step_ = coin.uniform() < t.hard_soft_mix;
  model_->set_hard_attention_expectation(expectation_step_);
}

double EncoderDecoderTask::forward_backward(const Batch& batch, const BatchShare& share) {
  const TrainingConfig& t = training();
  const double batch_tokens = share.batch_tokens;
  double loss = 0.0;
  {
    // training.precision bf16: the step's products round their inputs to bfloat16. The model
    // carries the precision (build_model) into every op that multiplies, and each op's
    // backward keeps it.
    if (t.precision == kernels::MatmulPrecision::bf16) kernels::require_bf16_products();
    ArenaScope scope(&arena_);
    fill_source(batch, false);
    fill_token_batch(tgt_in_, batch.size, batch.tgt_len, batch.tgt_in, batch.tgt_lengths);
    std::vector<std::int32_t> targets;
    Var logits;
    CrossEntropyResult ce;
    if (hard_) {  // REINFORCE reads the logits (hard attention has no copy: build_model)
      logits = model_->forward_packed(src_, tgt_in_);
      targets = pack_targets(batch.tgt_out, tgt_in_);
      ce = cross_entropy_with_count(logits, targets, kPad, t.label_smoothing);
    } else {
      ce = loss_of(batch, t.label_smoothing);
    }
    const auto count = static_cast<double>(ce.count);
    loss = ce.loss.value().item();
    // A rank's share of a data-parallel batch: its mean weighs count / batch_tokens, so that
    // the sum over the ranks is the gradient of the whole batch's mean.
    Var total = batch_tokens > 0 ? scale(ce.loss, count / batch_tokens) : ce.loss;
    const double ctc_weight = context_.config.model.listener.ctc_weight;
    if (ctc_weight > 0) {
      total = joint_ctc_loss(total, ctc_logits_, src_.lengths, batch.tgt_out,
                             static_cast<std::int64_t>(batch.tgt_len),
                             batch_tokens > 0 ? batch_tokens : count, ctc_weight);
      ctc_logits_ = Var();
    }
    if (hard_ && !expectation_step_) {
      // REINFORCE for the sampled attention positions (docs/MODELS.md#hard-attention); the
      // reported loss stays the cross-entropy. A rank's share divides by the whole batch's
      // tokens and updates the baseline with the whole batch's mean NLL, as one process would.
      const std::vector<double> nll = sentence_nll(logits.value(), targets, tgt_in_.lengths);
      ReinforceOptions ro{t.reinforce_weight, t.entropy_weight, t.baseline_decay};
      std::optional<double> mean;
      if (batch_tokens > 0) mean = share.parallel->whole_batch_mean(nll, count);
      total = add(total, reinforce_loss(trace_, nll, tgt_in_.lengths,
                                        batch_tokens > 0 ? batch_tokens : count, ro, baseline_,
                                        mean));
      trace_.clear();
    }
    if (t.doubly_stochastic > 0)  // soft attention of a family that takes it (build_model)
      total = add(total, doubly_stochastic_penalty(alpha_trace_, tgt_in_.lengths, src_.lengths,
                                                   t.doubly_stochastic,
                                                   batch_tokens > 0 ? batch_tokens : count));
    if (t.coverage_loss > 0)
      total = add(total, coverage_loss(alpha_trace_, tgt_in_.lengths, t.coverage_loss,
                                       batch_tokens > 0 ? batch_tokens : count));
    alpha_trace_.clear();
    Tape::current().backward(total);
  }
  arena_.reset();
  return loss;
}

void EncoderDecoderTask::skip_share(const BatchShare& share) {
  // No sentence here: in the sum of the whole batch's NLL all the same, for the same baseline.
  if (hard_ && !expectation_step_)
    update_baseline(baseline_, share.parallel->whole_batch_mean({}, 0.0),
                    training().baseline_decay);
}

DevMetricResult EncoderDecoderTask::dev_metric() {
  const TrainingConfig& t = training();
  double loss_sum = 0.0;
  std::int64_t count = 0;
  const bool decode = t.metric != DevMetric::loss;
  const bool coverage = t.coverage_loss > 0;
  double coverage_sum = 0.0;
  std::vector<std::vector<std::int32_t>> decoded(decode ? dev_corpus_.size() : 0);
  {
    NoGradGuard no_grad;
    model_->eval();
    DecodeOptions dopt;
    dopt.len_a = static_cast<double>(t.max_output_factor);
    dopt.len_b = 10.0;
    limit_dev_decoding(dopt);
    FrozenModel frozen(*model_);  // weights packed once for all dev batches
    for (const auto& members : dev_plan_) {
      const Batch b = make_batch(dev_corpus_, members);
      {
        ArenaScope scope(&arena_);
        fill_source(b, true);
        fill_token_batch(tgt_in_, b.size, b.tgt_len, b.tgt_in, b.tgt_lengths);
        CrossEntropyResult ce;
        if (coverage && !model_->copies()) {  // every position's logits, and the weights
          Tensor alphas;
          Var logits = model_->forward(src_, tgt_in_, &alphas);
          ce = cross_entropy_with_count(logits, b.tgt_out, kPad, 0.0);
          coverage_sum += coverage_loss_sum(alphas, tgt_in_.lengths);
        } else {
          ce = loss_of(b, 0.0);
          if (coverage) {  // copy and coverage: the weights from one more teacher-forced pass
            Tensor alphas;
            (void)model_->forward(src_, tgt_in_, &alphas);
            coverage_sum += coverage_loss_sum(alphas, tgt_in_.lengths);
          }
        }
        loss_sum += ce.loss.value().item() * static_cast<double>(ce.count);
        count += ce.count;
        if (decode) {
          DecodeResult r = greedy_decode(*model_, src_, dopt);
          for (std::size_t i = 0; i < b.size; ++i) decoded[b.members[i]] = r.best(i).tokens;
        }
      }
      arena_.reset();
    }
    model_->train();
  }
  const double loss = count ? loss_sum / static_cast<double>(count) : 0.0;
  DevMetricResult s;
  s.fields["dev_loss"] = loss;
  s.fields["perplexity"] = std::exp(loss);
  s.value = loss;
  s.shown = "loss " + format_number("%.4f", loss) + ", ppl " + format_number("%.2f", std::exp(loss));
  if (coverage) {  // per target token, unweighted (training.coverage_loss is the weight)
    const double per_token = count ? coverage_sum / static_cast<double>(count) : 0.0;
    s.fields["dev_coverage_loss"] = per_token;
    s.shown += ", coverage " + format_number("%.4f", per_token);
  }
  if (decode) metric_of_decoded(decoded, s);
  return s;
}

void EncoderDecoderTask::save_state(TrainingState& state) const {
  state.has_baseline = baseline_.has_value;
  state.baseline = baseline_.per_token;
}

void EncoderDecoderTask::restore_state(const TrainingState& state) {
  baseline_ = {state.has_baseline, state.baseline};
}

}  // namespace heed
