// The image classification task (model.kind ram, fc, cnn; models/image_classifier.h): images
// with one class each, the class names kept as the target vocabulary, from image files or
// drawn here (data.generate, its items placed anew every epoch). Its loss is
// train/ram_loss.h (cross-entropy and, for the recurrent attention model's sampled
// locations, REINFORCE with the learned baseline), the batch's shares run side by side
// (train/classifier_shares.h); the dev set is scored by its loss or its classification error.
// It trains in one process.
#include <algorithm>
#include <cmath>
#include <tuple>

#include "heed/autograd/tape.h"
#include "heed/base/error.h"
#include "heed/data/fashion_mnist.h"
#include "heed/data/fresh_image_set.h"
#include "heed/data/image_classes.h"
#include "heed/kernels/bf16_products.h"
#include "heed/models/image_classifier.h"
#include "heed/models/model_registry.h"
#include "heed/store/model_dir.h"
#include "heed/train/classifier_shares.h"
#include "heed/train/task.h"

namespace heed {

namespace {

class ImageClassificationTask final : public TrainingTask {
 public:
  using TrainingTask::TrainingTask;

  void load_data() override;
  void build_model() override;
  Module& module() override { return *classifier_; }
  void save_files() const override;
  std::string describe_data() const override;
  void set_epoch(std::int64_t epoch) override;
  double forward_backward(const Batch& batch, const BatchShare& share) override;
  DevMetricResult dev_metric() override;

 private:
  void generate_images();  // data.generate
  // The current epoch's training images.
  const IdxImages& train_pixels() const {
    return fresh_ ? fresh_->set().images : train_images_.images;
  }

  Vocabulary tgt_vocab_;  // the class names
  std::unique_ptr<ImageClassifier> classifier_;
  std::unique_ptr<ClassifierShares> shares_;  // its training steps, made at the first one
  // The images and their class ids; batches come from image_corpus, one entry per image.
  ClassifiedImages train_images_, dev_images_;
  // data.generate: the training images drawn here, items placed anew every epoch; then
  // train_images_ holds the labels only and train_pixels() the current epoch's canvases.
  std::unique_ptr<FreshImageSet> fresh_;
};

void ImageClassificationTask::load_data() {
  // The classes are the training targets' names, kept as tgt.vocab.
  const DataConfig& d = context_.config.data;
  if (d.generate.kind) {
    generate_images();
  } else {
    if (context_.reuse_directory)
      tgt_vocab_ = Vocabulary::load(path_in(context_.dir, model_files::kTgtVocab));
    else tgt_vocab_ = build_class_vocabulary(read_class_names(d.train_target));
    train_images_ = read_classified_images(d.train_images, d.train_target, tgt_vocab_);
  }
  corpus_ = image_corpus(train_images_);
  if (d.dev_images.empty()) return;
  dev_images_ = read_classified_images(d.dev_images, d.dev_target, tgt_vocab_);
  if (d.max_dev_sentences > 0 &&
      dev_images_.labels.size() > static_cast<std::size_t>(d.max_dev_sentences))
    dev_images_.labels.resize(static_cast<std::size_t>(d.max_dev_sentences));
  dev_corpus_ = image_corpus(dev_images_);
  plan_dev_batches();
}

void ImageClassificationTask::generate_images() {
  const DataConfig::Generate& g = context_.config.data.generate;
  ImageSetOptions o;
  o.kind = *g.kind;
  o.count = g.count;
  o.size = g.size;
  o.pieces = g.pieces;
  o.piece_size = g.piece_size;
  try {
    fresh_ = std::make_unique<FreshImageSet>(read_fashion_mnist(g.source, FashionMnistSplit::train),
                                             o, g.seed);
  } catch (const UsageError& e) {  // the options against the source's images
    throw UsageError(std::string("data.generate: ") + e.what());
  }
  // The class names of the items, as `heed data images` writes them to train.tgt.
  std::vector<std::string> names;
  names.reserve(fresh_->set().items.size());
  for (const std::vector<PlacedItem>& items : fresh_->set().items)
    names.emplace_back(kFashionMnistClasses.at(items.front().label));
  if (context_.reuse_directory)
    tgt_vocab_ = Vocabulary::load(path_in(context_.dir, model_files::kTgtVocab));
  else tgt_vocab_ = build_class_vocabulary(names);
  train_images_ = {};
  train_images_.labels.reserve(names.size());
  for (const std::string& name : names) train_images_.labels.push_back(tgt_vocab_.id(name));
  HEED_CHECK(std::all_of(train_images_.labels.begin(), train_images_.labels.end(),
                         [](std::int32_t id) { return id >= Vocabulary::kSpecials; }),
             "data.generate: a class of the generated images is missing from ",
             path_in(context_.dir, model_files::kTgtVocab));
}

void ImageClassificationTask::build_model() {
  ModelConfig& mc = context_.config.model;
  set_vocabulary_size(mc.tgt_vocab, tgt_vocab_.size(), "tgt_vocab");
  const IdxImages& pixels = train_pixels();  // the size of the training images
  for (auto [field, n, key] : {std::tuple{&mc.classifier.image_height, pixels.rows, "image_height"},
                               std::tuple{&mc.classifier.image_width, pixels.cols, "image_width"}}) {
    HEED_CHECK(*field == 0 || *field == n, "model.", key, " is ", *field, " but the training "
               "images are ", pixels.rows, "x", pixels.cols,
               "; leave it 0 (it is set from the training images)");
    *field = n;
  }
  validate_model_config(mc);  // sizes against memory too, before anything is allocated
  HEED_CHECK(!context_.distributed, "model.kind ", enum_name(mc.kind), " trains in one "
             "process; run heed train without mpirun");
  classifier_ = make_image_classifier(mc, 1, context_.rng, training().dtype);
  classifier_->set_compute_type({.training = training().precision});  // its training passes
  HEED_CHECK(training().hard_soft_mix == 0, "training.hard_soft_mix: hard attention only");
}

void ImageClassificationTask::save_files() const {
  tgt_vocab_.save(path_in(context_.dir, model_files::kTgtVocab));
}

std::string ImageClassificationTask::describe_data() const {
  const IdxImages& pixels = train_pixels();
  return std::to_string(pixels.count) + " training images of " + std::to_string(pixels.rows) +
         "x" + std::to_string(pixels.cols) + ", " + std::to_string(classifier_->classes()) +
         " classes" +
         (fresh_ ? ", generated (" + std::string(enum_name(*context_.config.data.generate.kind)) +
                       "), placed anew every epoch"
                 : std::string());
}

void ImageClassificationTask::set_epoch(std::int64_t epoch) {
  if (fresh_) fresh_->move_to(epoch);  // data.generate: this epoch's placements
}

double ImageClassificationTask::forward_backward(const Batch& batch, const BatchShare& /*share*/) {
  // The reported loss is the cross-entropy; with two or more threads the batch's shares run
  // side by side.
  const TrainingConfig& t = training();
  if (t.precision == kernels::MatmulPrecision::bf16) kernels::require_bf16_products();
  if (!shares_)
    shares_ = std::make_unique<ClassifierShares>(*classifier_, [this] {
      Rng unused;  // the replica's initial values are replaced by the model's
      return make_image_classifier(context_.config.model, classifier_->channels(), unused,
                                   training().dtype);
    });
  double loss = 0.0;
  {
    ArenaScope scope(&arena_);
    const Tensor x = classifier_images(train_pixels(), batch.members, t.dtype);
    std::vector<std::int32_t> labels(batch.tgt_out.begin(), batch.tgt_out.end());
    for (std::int32_t& y : labels) y -= Vocabulary::kSpecials;
    loss = shares_->forward_backward(x, labels, context_.rng, t.reinforce_weight)
               .classification;
  }
  arena_.reset();
  return loss;
}

DevMetricResult ImageClassificationTask::dev_metric() {
  // The test-time prediction on the dev images; for ram the mean locations, or
  // model.sample_paths paths (random ones with model.random_locations) drawn from a generator
  // of their own (the same paths at every validation).
  const TrainingConfig& t = training();
  NoGradGuard no_grad;
  classifier_->eval();
  Rng paths(t.seed);
  double nll = 0.0;
  std::int64_t wrong = 0, count = 0;
  const std::int64_t C = classifier_->classes();
  for (const auto& members : dev_plan_) {
    {
      ArenaScope scope(&arena_);
      const ClassPrediction p = classifier_->predict(
          Var(classifier_images(dev_images_.images, members, t.dtype)),
          context_.config.model.ram.sample_paths, paths);
      const std::vector<double> probs = p.probabilities.to_vector();
      for (std::size_t b = 0; b < members.size(); ++b) {
        const std::int32_t y = dev_images_.labels[members[b]] - Vocabulary::kSpecials;
        const double* row = probs.data() + static_cast<std::ptrdiff_t>(b) * C;
        nll -= std::log(std::max(row[y], 1e-300));
        wrong += std::max_element(row, row + C) - row != y;
        ++count;
      }
    }
    arena_.reset();
  }
  classifier_->train();
  const double loss = count ? nll / static_cast<double>(count) : 0.0;
  const double error = count ? 100.0 * static_cast<double>(wrong) / static_cast<double>(count) : 0.0;
  DevMetricResult s;
  s.fields["dev_loss"] = loss;
  s.fields["error"] = error;
  s.shown = "loss " + format_number("%.4f", loss) + ", error " + format_number("%.2f", error) + "%";
  s.value = t.metric == DevMetric::error ? error : loss;
  return s;
}

std::unique_ptr<TrainingTask> make(const TaskContext& context) {
  return std::make_unique<ImageClassificationTask>(context);
}

}  // namespace

extern const TrainingTaskSpec kImageClassificationTask{"image classification", classifies_images, make};

}  // namespace heed
