// The sequence-to-sequence task (model.kind bahdanau, luong, noattn): pairs of text lines,
// tokenised and mapped to ids with each side's tokeniser and vocabulary, made here on a fresh
// run (a SentencePiece model trained or copied into the directory) and read back from it
// otherwise; the dev set scored by its loss, BLEU, WER or the g2p scores of its greedy
// translations. The loss and the decoding are EncoderDecoderTask's.
#include <filesystem>

#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/data/sentencepiece_tokenizer.h"
#include "heed/data/text_file.h"
#include "heed/metrics/bleu.h"
#include "heed/metrics/g2p.h"
#include "heed/metrics/wer.h"
#include "heed/models/model_registry.h"
#include "heed/store/model_dir.h"
#include "heed/train/encoder_decoder_task.h"

namespace fs = std::filesystem;

namespace heed {

namespace {

class Seq2SeqTask final : public EncoderDecoderTask {
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

  // The side's tokeniser, saved as `file` in the model directory on a fresh run: a copy of
  // the SentencePiece model `existing`, or one trained on `lines` ("" = train).
  std::unique_ptr<Tokenizer> side_tokenizer(const SideConfig& side,
                                            const std::vector<std::string>& lines,
                                            const char* file, const std::string& existing) const;
  Vocabulary side_vocabulary(const SideConfig& side, const Tokenizer& tok,
                             const std::vector<std::string>& lines, const char* file) const;
  // model.share_embeddings: one vocabulary over both sides' tokens, with the size limits of
  // `limits` (data.source).
  Vocabulary joint_vocabulary(const SideConfig& limits, const ParallelText& text) const;

  std::unique_ptr<Tokenizer> src_tok_, tgt_tok_;
  Vocabulary src_vocab_, tgt_vocab_;
  // By dev corpus position: the references of each dev pair (a tab in a dev target line
  // separates alternatives, e.g. the pronunciations of a word; the loss uses the first).
  std::vector<std::vector<std::string>> dev_refs_;
};

std::unique_ptr<Tokenizer> Seq2SeqTask::side_tokenizer(const SideConfig& side,
                                                       const std::vector<std::string>& lines,
                                                       const char* file,
                                                       const std::string& existing) const {
  const std::string dst = path_in(context_.dir, file);
  if (side.tokenizer != TokenizerKind::sentencepiece) return make_tokenizer(side.tokenizer, side.lowercase);
  if (!context_.reuse_directory) {
    if (!existing.empty()) {
      HEED_CHECK(fs::is_regular_file(existing), existing, ": no such SentencePiece model file");
      std::error_code ec;
      fs::copy_file(existing, dst + ".tmp", fs::copy_options::overwrite_existing, ec);
      if (!ec) fs::rename(dst + ".tmp", dst, ec);
      if (ec) {
        std::error_code ignored;
        fs::remove(dst + ".tmp", ignored);
        throw Error(dst + ": cannot copy the SentencePiece model " + existing + " (" +
                    ec.message() + ")");
      }
    } else {
      SentencePieceOptions o;
      o.vocab_size = static_cast<int>(side.spm_vocab_size);
      o.model_type = side.spm_model_type;
      o.character_coverage = side.spm_character_coverage;
      o.lowercase = side.lowercase;
      o.num_threads = training().threads > 0 ? static_cast<int>(training().threads) : 2;
      SentencePieceTokenizer::train(lines, dst, o);
    }
  }
  return load_tokenizer(side, dst);
}

// The vocabulary of counted tokens under a side's limits (data.*.vocab_max_size, vocab_min_freq).
Vocabulary vocabulary_of(const SideConfig& side, const TokenCounter& counts) {
  VocabularyOptions o;
  o.max_size = static_cast<std::size_t>(side.vocab_max_size);
  o.min_freq = side.vocab_min_freq;
  return Vocabulary::build(counts, o);
}

Vocabulary Seq2SeqTask::side_vocabulary(const SideConfig& side, const Tokenizer& tok,
                                        const std::vector<std::string>& lines,
                                        const char* file) const {
  const std::string path = path_in(context_.dir, file);
  if (context_.reuse_directory) return Vocabulary::load(path);
  return vocabulary_of(side, count_tokens(lines, tok));  // saved once the model is built
}

Vocabulary Seq2SeqTask::joint_vocabulary(const SideConfig& limits,
                                          const ParallelText& text) const {
  TokenCounter counter = count_tokens(text.source, *src_tok_);
  const TokenCounter target = count_tokens(text.target, *tgt_tok_);
  for (const auto& [token, n] : target.counts()) counter.add(token, n);
  return vocabulary_of(limits, counter);  // saved once the model is built, as both sides'
}

void Seq2SeqTask::load_data() {
  const TrainConfig& c = context_.config;
  ParallelText text = read_parallel(c.data.train_source, c.data.train_target);
  if (c.data.spm_joint) {
    // One SentencePiece model for both sides (data.spm_joint): trained on the two sides'
    // lines together with data.source's options (or data.source.spm_model), then the same
    // file again as the target's.
    std::vector<std::string> both = text.source;
    both.insert(both.end(), text.target.begin(), text.target.end());
    src_tok_ = side_tokenizer(c.data.source, both, model_files::kSrcSpm, c.data.source.spm_model);
    tgt_tok_ = side_tokenizer(c.data.target, {}, model_files::kTgtSpm,
                              path_in(context_.dir, model_files::kSrcSpm));
  } else {
    src_tok_ = side_tokenizer(c.data.source, text.source, model_files::kSrcSpm,
                              c.data.source.spm_model);
    tgt_tok_ = side_tokenizer(c.data.target, text.target, model_files::kTgtSpm,
                              c.data.target.spm_model);
  }
  const bool shared = c.model.kind == ModelKind::transformer &&
                      c.model.transformer.share_embeddings;
  if (shared && !context_.reuse_directory) {
    // One embedding table for both sides (model.share_embeddings): one vocabulary over both
    // sides' tokens (the config checks that they are tokenised alike), with data.source's
    // limits, saved as both src.vocab and tgt.vocab (read back as two files when resuming).
    src_vocab_ = joint_vocabulary(c.data.source, text);
    tgt_vocab_ = src_vocab_;
  } else {
    src_vocab_ = side_vocabulary(c.data.source, *src_tok_, text.source, model_files::kSrcVocab);
    tgt_vocab_ = side_vocabulary(c.data.target, *tgt_tok_, text.target, model_files::kTgtVocab);
  }
  // A side longer than the model can place (learned positions: model.max_positions) is left
  // out like one longer than data.*.max_length.
  const auto longest = [](std::int64_t data, std::int64_t model) {
    return static_cast<std::size_t>(model > 0 && (data == 0 || model < data) ? model : data);
  };
  const std::int64_t model_src = max_source_length(c.model), model_tgt = max_target_length(c.model);
  CorpusOptions co;
  co.max_src_len = longest(c.data.source.max_length, model_src);
  co.max_tgt_len = longest(c.data.target.max_length, model_tgt);
  if (c.model.copy) co.copy_vocab = &tgt_vocab_;  // copy attention's maps (data/copy_map.h)
  corpus_ = build_corpus(text, *src_tok_, src_vocab_, *tgt_tok_, tgt_vocab_, co);
  HEED_CHECK(corpus_.size() > 0, c.data.train_source,
             ": no training pair is left after filtering (", corpus_.stats.summary(),
             "); raise data.source.max_length / data.target.max_length",
             model_src > 0 || model_tgt > 0 ? " (and the model's bound: model.max_positions or "
                                              "model.max_src_len)" : "");

  if (c.data.dev_source.empty()) return;
  ParallelText dev = read_parallel(c.data.dev_source, c.data.dev_target);
  if (c.data.max_dev_sentences > 0 &&
      dev.size() > static_cast<std::size_t>(c.data.max_dev_sentences)) {
    dev.source.resize(static_cast<std::size_t>(c.data.max_dev_sentences));
    dev.target.resize(static_cast<std::size_t>(c.data.max_dev_sentences));
  }
  std::vector<std::vector<std::string>> alternatives(dev.size());
  for (std::size_t i = 0; i < dev.size(); ++i) {
    alternatives[i] = metrics::split_g2p_references(dev.target[i]);
    if (!alternatives[i].empty()) dev.target[i] = alternatives[i].front();
  }
  CorpusOptions dco;  // dev pairs are never dropped for length, except where the model must
  dco.max_src_len = static_cast<std::size_t>(model_src);
  dco.max_tgt_len = static_cast<std::size_t>(model_tgt);
  dco.copy_vocab = co.copy_vocab;
  dev_corpus_ = build_corpus(dev, *src_tok_, src_vocab_, *tgt_tok_, tgt_vocab_, dco);
  HEED_CHECK(dev_corpus_.size() > 0, c.data.dev_source, ": no dev pair is usable (",
             dev_corpus_.stats.summary(), ")");
  dev_refs_.resize(dev_corpus_.size());
  for (std::size_t k = 0; k < dev_corpus_.size(); ++k) {
    for (const std::string& ref : alternatives[dev_corpus_.index[k]])
      dev_refs_[k].push_back(c.data.target.lowercase ? to_lower(ref) : ref);
  }
  plan_dev_batches();
}

void Seq2SeqTask::set_data_sizes(ModelConfig& model) const {
  set_vocabulary_size(model.src_vocab, src_vocab_.size(), "src_vocab");
  set_vocabulary_size(model.tgt_vocab, tgt_vocab_.size(), "tgt_vocab");
}

void Seq2SeqTask::save_files() const {
  src_vocab_.save(path_in(context_.dir, model_files::kSrcVocab));
  tgt_vocab_.save(path_in(context_.dir, model_files::kTgtVocab));
}

std::string Seq2SeqTask::describe_data() const {
  return corpus_.stats.summary() + "; vocabularies: source " + std::to_string(src_vocab_.size()) +
         ", target " + std::to_string(tgt_vocab_.size());
}

void Seq2SeqTask::fill_source(const Batch& batch, bool /*dev*/) {
  fill_token_batch(src_, batch.size, batch.src_len, batch.src, batch.src_lengths);
  src_.copy_ids.assign(batch.src_copy.begin(), batch.src_copy.end());  // model.copy, else empty
  src_.extended = batch.extended;
}

void Seq2SeqTask::metric_of_decoded(const std::vector<std::vector<std::int32_t>>& decoded,
                                    DevMetricResult& s) const {
  std::vector<std::string> hyps(decoded.size());
  for (std::size_t k = 0; k < decoded.size(); ++k)
    hyps[k] = tgt_tok_->decode(dev_corpus_.has_copy()
                                   ? decode_extended(decoded[k], tgt_vocab_, dev_corpus_.copy[k].words)
                                   : tgt_vocab_.decode(decoded[k]));
  const DevMetric metric = training().metric;
  if (metric == DevMetric::bleu) {
    s.value = metrics::corpus_bleu(hyps, dev_refs_).score;
    s.fields["bleu"] = s.value;
    s.shown += ", BLEU " + format_number("%.2f", s.value);
  } else if (metric == DevMetric::wer) {
    std::vector<std::string> first;
    for (auto& refs : dev_refs_) first.push_back(refs.front());
    s.value = metrics::corpus_wer(hyps, first);
    s.fields["wer"] = s.value;
    s.shown += ", WER " + format_number("%.2f", s.value);
  } else if (metric == DevMetric::g2p) {
    const metrics::G2pScore g = metrics::g2p_score(hyps, dev_refs_);
    s.value = g.wer;
    s.fields["wer"] = g.wer;
    s.fields["per"] = g.per;
    s.shown += ", WER " + format_number("%.2f", g.wer) + ", PER " + format_number("%.2f", g.per);
  }
}

std::unique_ptr<TrainingTask> make(const TaskContext& context) {
  return std::make_unique<Seq2SeqTask>(context);
}

bool trains(ModelKind kind) { return is_sequence_to_sequence(kind); }

}  // namespace

extern const TrainingTaskSpec kSeq2SeqTask{"sequence to sequence", trains, make};

}  // namespace heed
