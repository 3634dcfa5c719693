#pragma once
// EncoderDecoderTask: what every family whose model is a Seq2Seq shares in training
// (docs/TRAINING.md): teacher-forced cross-entropy over the real target positions, with
// label smoothing; for hard attention REINFORCE on the sampled positions with its moving
// baseline (train/reinforce.h) and training.hard_soft_mix; for soft attention over an
// image's grid the doubly stochastic penalty (train/doubly_stochastic.h); for soft attention the
// coverage loss (train/coverage_loss.h, logged on the dev set too); with model.ctc_weight the
// joint CTC loss of a listener's head (train/joint_ctc.h); the dev loss, and
// greedy decoding of the dev set for a metric that scores the output. A family supplies its
// data, its source batches and the metric of the decoded dev set: text in seq2seq_task.cpp,
// images in image_to_sequence_task.cpp.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/decode/decode_options.h"
#include "heed/models/seq2seq.h"
#include "heed/train/reinforce.h"
#include "heed/train/task.h"

namespace heed {

class EncoderDecoderTask : public TrainingTask {
 public:
  using TrainingTask::TrainingTask;

  void build_model() override;
  Module& module() override { return *model_; }
  void begin_step(std::int64_t step) override;
  double forward_backward(const Batch& batch, const BatchShare& share) override;
  void skip_share(const BatchShare& share) override;
  DevMetricResult dev_metric() override;
  void save_state(TrainingState& state) const override;
  void restore_state(const TrainingState& state) override;

 protected:
  // The model section's sizes that come from the data (set_vocabulary_size).
  virtual void set_data_sizes(ModelConfig& model) const = 0;
  // src_ for batch's members, from the training set or the dev set.
  virtual void fill_source(const Batch& batch, bool dev) = 0;
  // Whether training.doubly_stochastic applies (with soft attention).
  virtual bool takes_doubly_stochastic() const { return false; }
  // The decoding of the dev set, from training.max_output_factor.
  virtual void limit_dev_decoding(DecodeOptions& /*options*/) const {}
  // The dev set's greedy outputs (by dev corpus position) under training.metric: sets
  // result.value, adds its fields and its log text.
  virtual void metric_of_decoded(const std::vector<std::vector<std::int32_t>>& decoded,
                                 DevMetricResult& result) const = 0;

  std::unique_ptr<Seq2Seq> model_;
  TokenBatch src_, tgt_in_;

 private:
  // The mean loss of batch (src_ and tgt_in_ filled): cross-entropy at the real target
  // positions, or with model.copy copy attention's -log P(y) over the extended vocabulary.
  CrossEntropyResult loss_of(const Batch& batch, double label_smoothing);

 private:
  // Hard attention: the samples of the step's forward pass and the REINFORCE baseline.
  bool hard_ = false;
  bool expectation_step_ = false;  // training.hard_soft_mix chose the soft expectation
  HardAttentionTrace trace_;
  ReinforceBaseline baseline_;
  std::vector<Var> alpha_trace_;  // doubly_stochastic, coverage_loss: the steps' weights
  Var ctc_logits_;                // model.ctc_weight: the CTC head's logits of the step
};

// Copies rows into a reusable TokenBatch (no allocation once its vectors have grown).
void fill_token_batch(TokenBatch& batch, std::size_t rows, std::size_t len,
                      const std::vector<std::int32_t>& ids, const std::vector<std::int32_t>& lengths);

}  // namespace heed
