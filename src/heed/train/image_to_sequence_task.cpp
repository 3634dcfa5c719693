// The image-to-sequence task (model.kind image2seq, docs/ARCHITECTURE.md#images-as-sources):
// images with the class names they hold as targets; the source batches carry the images
// (image_source), the target vocabulary holds the names. The dev set is scored by its loss or
// its sequence error (the share of images whose greedy names differ from the target); the
// doubly stochastic penalty applies to its soft attention over the grid. The loss and the
// decoding are EncoderDecoderTask's.
#include <algorithm>

#include "heed/data/image_sequences.h"
#include "heed/models/image_classifier.h"
#include "heed/models/image_encoder.h"
#include "heed/models/model_registry.h"
#include "heed/store/model_dir.h"
#include "heed/train/encoder_decoder_task.h"

namespace heed {

namespace {

class ImageToSequenceTask final : public EncoderDecoderTask {
 public:
  using EncoderDecoderTask::EncoderDecoderTask;

  void load_data() override;
  void save_files() const override;
  std::string describe_data() const override;

 private:
  void set_data_sizes(ModelConfig& model) const override;
  void fill_source(const Batch& batch, bool dev) override;
  bool takes_doubly_stochastic() const override { return true; }
  void limit_dev_decoding(DecodeOptions& options) const override;
  void metric_of_decoded(const std::vector<std::vector<std::int32_t>>& decoded,
                         DevMetricResult& result) const override;

  Vocabulary tgt_vocab_;
  ImageSequences train_seqs_, dev_seqs_;
};

void ImageToSequenceTask::load_data() {
  // The target vocabulary holds the class names of the training targets.
  const DataConfig& d = context_.config.data;
  tgt_vocab_ = context_.reuse_directory
                   ? Vocabulary::load(path_in(context_.dir, model_files::kTgtVocab))
                   : build_name_vocabulary(read_name_sequences(d.train_target));
  train_seqs_ = read_image_sequences(d.train_images, d.train_target, tgt_vocab_);
  corpus_ = image_sequence_corpus(train_seqs_);
  if (d.dev_images.empty()) return;
  dev_seqs_ = read_image_sequences(d.dev_images, d.dev_target, tgt_vocab_);
  dev_corpus_ = image_sequence_corpus(dev_seqs_, static_cast<std::size_t>(d.max_dev_sentences));
  plan_dev_batches();
}

void ImageToSequenceTask::set_data_sizes(ModelConfig& model) const {
  set_vocabulary_size(model.tgt_vocab, tgt_vocab_.size(), "tgt_vocab");
}

void ImageToSequenceTask::save_files() const {
  tgt_vocab_.save(path_in(context_.dir, model_files::kTgtVocab));
}

std::string ImageToSequenceTask::describe_data() const {
  return std::to_string(train_seqs_.images.count) + " training images of " +
         std::to_string(train_seqs_.images.rows) + "x" + std::to_string(train_seqs_.images.cols) +
         ", target vocabulary " + std::to_string(tgt_vocab_.size());
}

void ImageToSequenceTask::fill_source(const Batch& batch, bool dev) {
  const ImageSequences& set = dev ? dev_seqs_ : train_seqs_;
  src_ = image_source(classifier_images(set.images, batch.members, training().dtype),
                      context_.config.model.image);
}

void ImageToSequenceTask::limit_dev_decoding(DecodeOptions& options) const {
  // The longest dev target with EOS, and a few steps more.
  std::size_t longest = 0;
  for (const auto& y : dev_corpus_.tgt) longest = std::max(longest, y.size());
  options.max_len = static_cast<std::int64_t>(longest) + 5;
}

void ImageToSequenceTask::metric_of_decoded(const std::vector<std::vector<std::int32_t>>& decoded,
                                            DevMetricResult& s) const {
  if (training().metric != DevMetric::error) return;  // the only other metric is the loss
  std::int64_t wrong = 0;  // the dev images whose decoded names differ from the target
  for (std::size_t k = 0; k < decoded.size(); ++k) wrong += decoded[k] != dev_corpus_.tgt[k];
  s.value = dev_corpus_.size() ? 100.0 * static_cast<double>(wrong) /
                                     static_cast<double>(dev_corpus_.size())
                               : 0.0;
  s.fields["error"] = s.value;
  s.shown += ", sequence error " + format_number("%.2f", s.value) + "%";
}

std::unique_ptr<TrainingTask> make(const TaskContext& context) {
  return std::make_unique<ImageToSequenceTask>(context);
}

}  // namespace

extern const TrainingTaskSpec kImageToSequenceTask{"image to sequence", is_image_to_sequence,
                                                   make};

}  // namespace heed
