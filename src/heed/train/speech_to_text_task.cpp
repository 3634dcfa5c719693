// The speech-to-text task (model.kind las, docs/TRAINING.md#speech): the utterances of the
// data.train_manifest and data.dev_manifest .tsv files, their WAV files turned into log-mel
// frames once, when the data are read (audio/speech_features.h, data.audio), and kept in memory;
// the transcripts tokenised by data.target's tokeniser (characters or words) into the target
// vocabulary. Each corpus entry's source is a placeholder as long as its frames, so that the
// BatchSampler batches utterances of similar length under training.max_tokens (a frame counts
// as a token). The source batches carry the frames (speech_batch), with SpecAugment's masks
// (training.spec_augment) on training batches only, before the frames are stacked
// (data.audio.stack). The dev set is scored by its loss, its word
// error rate or its string error (the share of utterances whose greedy transcript differs
// from the reference). The loss and the decoding are EncoderDecoderTask's.
#include <omp.h>

#include <exception>

#include "heed/audio/spec_augment.h"
#include "heed/audio/speech_features.h"
#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/data/speech_manifest.h"
#include "heed/metrics/wer.h"
#include "heed/models/listener.h"
#include "heed/models/model_registry.h"
#include "heed/store/model_dir.h"
#include "heed/train/encoder_decoder_task.h"

namespace heed {

namespace {

// The features kept in memory: unstacked, so that SpecAugment masks whole frames and bins;
// fill_source stacks them (data.audio.stack).
SpeechFeatureOptions feature_options(const DataConfig& d) {
  return {static_cast<int>(d.audio.rate), static_cast<int>(d.audio.mels), d.audio.normalize, 1};
}

// The features of every utterance, computed on the run's threads (one LogMel plan each); the
// first failing file's error is thrown.
std::vector<Tensor> utterance_features(const std::vector<SpeechUtterance>& utterances,
                                       const SpeechFeatureOptions& options) {
  std::vector<Tensor> out(utterances.size());
  std::vector<std::exception_ptr> errors(utterances.size());
#pragma omp parallel
  {
    SpeechFeatures features(options);
#pragma omp for schedule(dynamic, 16)
    for (std::size_t i = 0; i < utterances.size(); ++i) {
      try {
        out[i] = features(utterances[i].audio_path);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

class SpeechToTextTask final : public EncoderDecoderTask {
 public:
  using EncoderDecoderTask::EncoderDecoderTask;

  void load_data() override;
  void save_files() const override;
  std::string describe_data() const override;

 private:
  void set_data_sizes(ModelConfig& model) const override;
  void fill_source(const Batch& batch, bool dev) override;
  void metric_of_decoded(const std::vector<std::vector<std::int32_t>>& decoded,
                         DevMetricResult& result) const override;

  // The utterances of a manifest as corpus entries (those whose transcript fits
  // data.target.max_length when limit_length), their features in feats.
  Corpus read_set(const std::string& manifest, bool limit_length, std::vector<Tensor>& feats,
                  std::vector<std::string>* transcripts) const;

  std::unique_ptr<Tokenizer> tgt_tok_;
  Vocabulary tgt_vocab_;
  std::vector<Tensor> train_feats_, dev_feats_;  // by corpus position
  std::vector<std::string> dev_refs_;            // the dev transcripts, by corpus position
  double train_seconds_ = 0.0;
};

Corpus SpeechToTextTask::read_set(const std::string& manifest, bool limit_length,
                                  std::vector<Tensor>& feats,
                                  std::vector<std::string>* transcripts) const {
  const TrainConfig& c = context_.config;
  const std::vector<SpeechUtterance> utts = read_speech_manifest(manifest);
  std::vector<Tensor> all = utterance_features(utts, feature_options(c.data));
  const auto max_len = static_cast<std::size_t>(c.data.target.max_length);
  Corpus corpus;
  corpus.stats.read = utts.size();
  for (std::size_t i = 0; i < utts.size(); ++i) {
    std::vector<std::int32_t> tgt = tgt_vocab_.encode(tgt_tok_->encode(utts[i].transcript));
    if (tgt.empty()) {
      ++corpus.stats.empty;
      continue;
    }
    tgt.push_back(kEos);
    if (limit_length && max_len > 0 && tgt.size() > max_len) {
      ++corpus.stats.too_long;
      continue;
    }
    const std::int64_t k = c.data.audio.stack;  // its frames as the listener reads them
    corpus.src.emplace_back(static_cast<std::size_t>((all[i].dim(0) + k - 1) / k), kEos);
    corpus.tgt.push_back(std::move(tgt));
    corpus.index.push_back(i);
    feats.push_back(std::move(all[i]));
    if (transcripts)
      transcripts->push_back(c.data.target.lowercase ? to_lower(utts[i].transcript)
                                                     : utts[i].transcript);
  }
  corpus.stats.kept = corpus.size();
  return corpus;
}

void SpeechToTextTask::load_data() {
  const TrainConfig& c = context_.config;
  const DataConfig& d = c.data;
  HEED_CHECK(d.target.tokenizer != TokenizerKind::sentencepiece, "data.target.tokenizer: "
             "model.kind las spells characters (char) or words (whitespace), not sentencepiece");
  tgt_tok_ = make_tokenizer(d.target.tokenizer, d.target.lowercase);
  if (context_.reuse_directory) {
    tgt_vocab_ = Vocabulary::load(path_in(context_.dir, model_files::kTgtVocab));
  } else {
    std::vector<std::string> lines;
    for (const SpeechUtterance& u : read_speech_manifest(d.train_manifest))
      lines.push_back(u.transcript);
    VocabularyOptions o;
    o.max_size = static_cast<std::size_t>(d.target.vocab_max_size);
    o.min_freq = d.target.vocab_min_freq;
    tgt_vocab_ = Vocabulary::build(count_tokens(lines, *tgt_tok_), o);
  }
  corpus_ = read_set(d.train_manifest, true, train_feats_, nullptr);
  HEED_CHECK(corpus_.size() > 0, d.train_manifest, ": no training utterance is left (",
             corpus_.stats.summary(), "); raise data.target.max_length");
  const auto hop = static_cast<double>(feature_options(d).log_mel().hop_length);
  for (const Tensor& f : train_feats_)
    train_seconds_ += static_cast<double>(f.dim(0)) * hop / static_cast<double>(d.audio.rate);
  if (d.dev_manifest.empty()) return;
  dev_corpus_ = read_set(d.dev_manifest, false, dev_feats_, &dev_refs_);
  HEED_CHECK(dev_corpus_.size() > 0, d.dev_manifest, ": no dev utterance is usable (",
             dev_corpus_.stats.summary(), ")");
  if (d.max_dev_sentences > 0 && dev_corpus_.size() > static_cast<std::size_t>(d.max_dev_sentences)) {
    const auto n = static_cast<std::size_t>(d.max_dev_sentences);
    dev_corpus_.src.resize(n);
    dev_corpus_.tgt.resize(n);
    dev_corpus_.index.resize(n);
    dev_feats_.resize(n);
    dev_refs_.resize(n);
  }
  plan_dev_batches();
}

void SpeechToTextTask::set_data_sizes(ModelConfig& model) const {
  set_vocabulary_size(model.tgt_vocab, tgt_vocab_.size(), "tgt_vocab");
  const DataConfig::Audio& a = context_.config.data.audio;
  const std::int64_t mels = a.mels * a.stack;
  HEED_CHECK(model.listener.feature_dim == 0 || model.listener.feature_dim == mels,
             "model.feature_dim is ", model.listener.feature_dim, " but data.audio.mels x stack "
             "is ", mels, "; leave it 0 (it is set from data.audio)");
  model.listener.feature_dim = mels;
}

void SpeechToTextTask::save_files() const {
  tgt_vocab_.save(path_in(context_.dir, model_files::kTgtVocab));
}

std::string SpeechToTextTask::describe_data() const {
  return corpus_.stats.summary() + " (" + format_number("%.2f", train_seconds_ / 3600.0) +
         " hours of speech, " + std::to_string(context_.config.data.audio.mels) +
         " log-mel bins); target vocabulary " + std::to_string(tgt_vocab_.size());
}

void SpeechToTextTask::fill_source(const Batch& batch, bool dev) {
  const std::vector<Tensor>& feats = dev ? dev_feats_ : train_feats_;
  const TrainingConfig::SpecAugment& sa = training().spec_augment;
  const bool augment = !dev && (sa.freq_masks > 0 || sa.time_masks > 0);
  SpecAugmentOptions o;
  o.freq_masks = static_cast<int>(sa.freq_masks);
  o.max_freq_width = static_cast<int>(sa.max_freq_width);
  o.time_masks = static_cast<int>(sa.time_masks);
  o.max_time_width = static_cast<int>(sa.max_time_width);
  o.max_time_fraction = sa.max_time_fraction;
  std::vector<Tensor> utterances;
  utterances.reserve(batch.members.size());
  const int k = static_cast<int>(context_.config.data.audio.stack);
  for (std::size_t i : batch.members)
    utterances.push_back(stack_frames(augment ? spec_augment(feats[i], o, context_.rng) : feats[i], k));
  src_ = speech_batch(utterances, context_.config.model.listener.reduction(), training().dtype);
}

void SpeechToTextTask::metric_of_decoded(const std::vector<std::vector<std::int32_t>>& decoded,
                                         DevMetricResult& s) const {
  std::vector<std::string> hyps(decoded.size());
  std::int64_t wrong = 0;  // the utterances whose transcript differs from the reference
  for (std::size_t k = 0; k < decoded.size(); ++k) {
    hyps[k] = tgt_tok_->decode(tgt_vocab_.decode(decoded[k]));
    wrong += decoded[k] != dev_corpus_.tgt[k];
  }
  const double wer = metrics::corpus_wer(hyps, dev_refs_);
  const double error = dev_corpus_.size() ? 100.0 * static_cast<double>(wrong) /
                                                static_cast<double>(dev_corpus_.size())
                                          : 0.0;
  s.value = training().metric == DevMetric::wer ? wer : error;
  s.fields["wer"] = wer;
  s.fields["error"] = error;
  s.shown += ", WER " + format_number("%.2f", wer) + ", string error " +
             format_number("%.2f", error) + "%";
}

std::unique_ptr<TrainingTask> make(const TaskContext& context) {
  return std::make_unique<SpeechToTextTask>(context);
}

}  // namespace

extern const TrainingTaskSpec kSpeechToTextTask{"speech to text", transcribes_speech, make};

}  // namespace heed
