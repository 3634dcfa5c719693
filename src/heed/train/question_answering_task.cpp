// The question-answering task (model.kind memn2n; models/memory_network.h): bAbI's stories and
// questions (data.babi: the tasks' training files, data/babi.h), every task's share
// data.babi.dev_fraction held out for validation, one vocabulary of their words (src.vocab,
// and tgt.vocab the same: the answer is a word of it). Its loss is the answer's cross-entropy;
// the dev set is scored by its loss or its error (the share of questions answered wrongly).
// Linear start (training.linear_start) trains without the hops' softmax until the dev loss
// stops falling. It trains in one process.
#include <algorithm>
#include <cmath>
#include <limits>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/data/babi.h"
#include "heed/data/babi_encoding.h"
#include "heed/kernels/gemm.h"
#include "heed/models/memory_network.h"
#include "heed/models/model_registry.h"
#include "heed/store/model_dir.h"
#include "heed/train/task.h"

namespace heed {

namespace {

// One corpus entry per question (the batch sampler sees each as a pair of one token each).
Corpus question_corpus(const std::vector<EncodedQuestion>& questions) {
  Corpus c;
  for (std::size_t i = 0; i < questions.size(); ++i) {
    c.src.push_back({questions[i].answer});
    c.tgt.push_back({questions[i].answer});
    c.index.push_back(i);
  }
  c.stats.read = c.stats.kept = questions.size();
  return c;
}

class QuestionAnsweringTask final : public TrainingTask {
 public:
  using TrainingTask::TrainingTask;

  void load_data() override;
  void build_model() override;
  Module& module() override { return *model_; }
  void save_files() const override;
  std::string describe_data() const override;
  void set_epoch(std::int64_t epoch) override;
  void begin_step(std::int64_t step) override;
  void add_weights_metadata(Metadata& metadata) const override;
  double forward_backward(const Batch& batch, const BatchShare& share) override;
  DevMetricResult dev_metric() override;
  LrPhase lr_phase() const override;
  void save_state(TrainingState& state) const override;
  void restore_state(const TrainingState& state) override;

 private:
  Vocabulary vocab_;
  std::vector<int> tasks_;
  std::vector<EncodedQuestion> train_, dev_;
  std::unique_ptr<MemoryNetwork> model_;
  // Linear start: on until training.linear_start_patience validations in a row bring no dev
  // loss below the lowest so far (lowest_dev_loss_; stale_ counts them).
  bool linear_ = false;
  double lowest_dev_loss_ = std::numeric_limits<double>::infinity();
  std::int64_t stale_ = 0;
  // Set when training.linear_start_epochs ended linear start, for the next validation's line.
  std::int64_t ended_at_epoch_ = -1;
  // The validation that ends linear start leaves it on until the next step, so that weights
  // saved at that validation (best.safetensors) are marked with the mode they were measured in.
  bool end_linear_ = false;
  // The last update made (begin_step), and the one after which linear start ended (-1: not
  // yet): training.linear_start_lr restarts the schedule from there (lr_phase).
  std::int64_t last_step_ = 0;
  std::int64_t linear_ended_at_ = -1;
};

void QuestionAnsweringTask::load_data() {
  const DataConfig::Babi& b = context_.config.data.babi;
  tasks_ = parse_babi_tasks(b.tasks);
  std::vector<BabiQuestion> questions;
  for (int task : tasks_) {
    std::vector<BabiQuestion> q = read_babi_file(babi_task_file(b.dir, task, "train"), task);
    questions.insert(questions.end(), std::make_move_iterator(q.begin()),
                     std::make_move_iterator(q.end()));
  }
  BabiSplit split = split_babi_validation(std::move(questions), b.dev_fraction, b.split_seed);
  if (context_.reuse_directory)
    vocab_ = Vocabulary::load(path_in(context_.dir, model_files::kSrcVocab));
  else vocab_ = babi_vocabulary(split.train);
  train_ = encode_babi(split.train, vocab_);
  dev_ = encode_babi(split.dev, vocab_);
  const std::int64_t max_dev = context_.config.data.max_dev_sentences;
  if (max_dev > 0 && dev_.size() > static_cast<std::size_t>(max_dev))
    dev_.resize(static_cast<std::size_t>(max_dev));
  linear_ = training().linear_start;
  corpus_ = question_corpus(train_);
  if (dev_.empty()) return;
  dev_corpus_ = question_corpus(dev_);
  plan_dev_batches();
}

void QuestionAnsweringTask::build_model() {
  ModelConfig& mc = context_.config.model;
  set_vocabulary_size(mc.src_vocab, vocab_.size(), "src_vocab");
  set_vocabulary_size(mc.tgt_vocab, vocab_.size(), "tgt_vocab");
  validate_model_config(mc);
  HEED_CHECK(!context_.distributed, "model.kind ", enum_name(mc.kind), " trains in one "
             "process; run heed train without mpirun");
  HEED_CHECK(training().precision == kernels::MatmulPrecision::f32, "training.precision: "
             "model.kind memn2n trains in fp32 (its products are small)");
  model_ = std::make_unique<MemoryNetwork>(mc, context_.rng, training().dtype);
}

void QuestionAnsweringTask::save_files() const {
  vocab_.save(path_in(context_.dir, model_files::kSrcVocab));
  vocab_.save(path_in(context_.dir, model_files::kTgtVocab));
}

std::string QuestionAnsweringTask::describe_data() const {
  std::string tasks = tasks_.size() == 20 ? "all 20 bAbI tasks"
                                          : std::to_string(tasks_.size()) + " bAbI task" +
                                                (tasks_.size() == 1 ? "" : "s");
  return std::to_string(train_.size()) + " training questions of " + tasks + " (" +
         std::to_string(dev_.size()) + " held out for validation), " +
         std::to_string(vocab_.size()) + " words";
}

void QuestionAnsweringTask::begin_step(std::int64_t step) {
  last_step_ = step;
  if (!end_linear_) return;
  linear_ = false;
  end_linear_ = false;
}

void QuestionAnsweringTask::add_weights_metadata(Metadata& metadata) const {
  metadata[kMemoryHopsKey] = linear_ ? "linear" : "softmax";
}

void QuestionAnsweringTask::set_epoch(std::int64_t epoch) {
  const std::int64_t limit = training().linear_start_epochs;
  if (linear_ && limit > 0 && epoch >= limit) {  // epochs count from 0: `limit` are done
    linear_ = false;
    ended_at_epoch_ = limit;
    linear_ended_at_ = last_step_;
  }
}

double QuestionAnsweringTask::forward_backward(const Batch& batch, const BatchShare& /*share*/) {
  const TrainingConfig& t = training();
  double loss = 0.0;
  {
    const kernels::ScopedNumThreads threads(model_->step_threads(
        static_cast<std::int64_t>(batch.members.size()), kernels::num_threads()));
    ArenaScope scope(&arena_);
    const MemoryBatch b = make_memory_batch(train_, batch.members, model_->memory_size(),
                                            t.random_empty_memories, &context_.rng);
    const MemoryAnswer a = model_->forward(b, linear_);
    Var ce = cross_entropy(a.logits, b.answers, -100, t.label_smoothing);
    loss = ce.value().item();
    Tape::current().backward(ce);
  }
  arena_.reset();
  return loss;
}

DevMetricResult QuestionAnsweringTask::dev_metric() {
  const TrainingConfig& t = training();
  NoGradGuard no_grad;
  model_->eval();
  std::size_t largest = 0;
  for (const auto& members : dev_plan_) largest = std::max(largest, members.size());
  const kernels::ScopedNumThreads threads(
      model_->step_threads(static_cast<std::int64_t>(largest), kernels::num_threads()));
  double nll = 0.0;
  std::int64_t wrong = 0, count = 0;
  for (const auto& members : dev_plan_) {
    {
      ArenaScope scope(&arena_);
      const MemoryBatch b = make_memory_batch(dev_, members, model_->memory_size());
      const MemoryAnswer a = model_->forward(b, linear_);
      const std::vector<double> logits = a.logits.value().to_vector();
      const std::int64_t V = model_->vocab();
      for (std::size_t r = 0; r < members.size(); ++r) {
        const double* row = logits.data() + static_cast<std::ptrdiff_t>(r) * V;
        double top = row[0];
        std::int64_t best = 0;
        for (std::int64_t v = 1; v < V; ++v)
          if (row[v] > top) top = row[best = v];
        double sum = 0.0;
        for (std::int64_t v = 0; v < V; ++v) sum += std::exp(row[v] - top);
        nll -= row[b.answers[r]] - top - std::log(sum);
        wrong += best != b.answers[r];
        ++count;
      }
    }
    arena_.reset();
  }
  model_->train();
  const double loss = count ? nll / static_cast<double>(count) : 0.0;
  const double error = count ? 100.0 * static_cast<double>(wrong) / static_cast<double>(count) : 0.0;
  DevMetricResult s;
  s.fields["dev_loss"] = loss;
  s.fields["error"] = error;
  s.shown = "loss " + format_number("%.4f", loss) + ", error " + format_number("%.2f", error) + "%";
  if (ended_at_epoch_ >= 0) {
    s.shown += " (linear start ended after " + std::to_string(ended_at_epoch_) +
               (ended_at_epoch_ == 1 ? " epoch" : " epochs") + ": the hops' softmax is back)";
    ended_at_epoch_ = -1;
  } else if (linear_) {
    s.fields["linear_start"] = true;
    stale_ = loss < lowest_dev_loss_ ? 0 : stale_ + 1;
    lowest_dev_loss_ = std::min(lowest_dev_loss_, loss);
    if (stale_ >= t.linear_start_patience) {  // the dev loss stopped falling: softmax back in
      end_linear_ = true;
      linear_ended_at_ = last_step_;
      s.shown += " (linear start ended: the hops' softmax is back)";
    } else {
      s.shown += " (linear start)";
    }
  }
  s.value = t.metric == DevMetric::error ? error : loss;
  return s;
}

TrainingTask::LrPhase QuestionAnsweringTask::lr_phase() const {
  const TrainingConfig& t = training();
  if (!t.linear_start || t.linear_start_lr <= 0) return {};
  if (linear_ended_at_ < 0) return {0, t.linear_start_lr};
  return {linear_ended_at_, std::nullopt};
}

void QuestionAnsweringTask::save_state(TrainingState& state) const {
  state.has_linear_start = true;
  state.linear_start = linear_ && !end_linear_;
  state.lowest_dev_loss = lowest_dev_loss_;
  state.stale_validations = stale_;
  state.linear_start_ended_at = linear_ended_at_;
}

void QuestionAnsweringTask::restore_state(const TrainingState& state) {
  if (!state.has_linear_start) return;
  linear_ = state.linear_start;
  lowest_dev_loss_ = state.lowest_dev_loss;
  stale_ = state.stale_validations;
  linear_ended_at_ = state.linear_start_ended_at;
  last_step_ = state.step;
}

std::unique_ptr<TrainingTask> make(const TaskContext& context) {
  return std::make_unique<QuestionAnsweringTask>(context);
}

}  // namespace

extern const TrainingTaskSpec kQuestionAnsweringTask{"question answering", answers_questions,
                                                     make};

}  // namespace heed
