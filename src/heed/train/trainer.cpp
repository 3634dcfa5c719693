#include "heed/train/trainer.h"

#include <atomic>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <tuple>

#include "heed/autograd/cross_entropy_op.h"
#include "heed/autograd/elementwise_op.h"
#include "heed/autograd/tape.h"
#include "heed/base/dir_lock.h"
#include "heed/base/error.h"
#include "heed/base/utf8.h"
#include "heed/data/batch_sampler.h"
#include "heed/data/corpus.h"
#include "heed/data/fashion_mnist.h"
#include "heed/data/fresh_image_set.h"
#include "heed/data/image_classes.h"
#include "heed/data/image_sequences.h"
#include "heed/data/sentencepiece_tokenizer.h"
#include "heed/data/text_file.h"
#include "heed/base/checksum.h"
#include "heed/dist/gradient_sync.h"
#include "heed/dist/world.h"
#include "heed/decode/frozen_model.h"
#include "heed/kernels/bf16_products.h"
#include "heed/decode/greedy.h"
#include "heed/kernels/gemm.h"
#include "heed/base/atomic_file.h"
#include "heed/metrics/bleu.h"
#include "heed/metrics/g2p.h"
#include "heed/metrics/wer.h"
#include "heed/models/image_encoder.h"
#include "heed/models/model_registry.h"
#include "heed/models/image_classifier.h"
#include "heed/tensor/arena.h"
#include "heed/train/adam.h"
#include "heed/store/checkpoint.h"
#include "heed/train/classifier_shares.h"
#include "heed/train/clip.h"
#include "heed/train/doubly_stochastic.h"
#include "heed/train/lr_schedule.h"
#include "heed/store/model_dir.h"
#include "heed/train/progress.h"
#include "heed/train/reinforce.h"
#include "heed/train/sgd.h"
#include "heed/train/training_state.h"

namespace fs = std::filesystem;

namespace heed {

namespace {

std::atomic<bool> g_stop{false};  // set by the signal thread, read by the loop

// Present while a run that started in the directory has written weights but not yet its
// first training state: such weights are that run's (a fresh run may remove them), not a
// user's (which it refuses to overwrite).
constexpr const char* kUnsavedMarker = ".heed.unsaved";


// The config with everything a resumed run may change blanked out: the data and model
// sections must stay as they were.
std::string identity_yaml(TrainConfig c) {
  c.training = TrainingConfig{};
  c.output.clear();
  c.model.src_vocab = c.model.tgt_vocab = 0;
  c.model.classifier.image_height = c.model.classifier.image_width = 0;  // from the images
  return to_yaml(c);
}

void check_resumable(const TrainConfig& saved, const TrainConfig& now, const std::string& dir) {
  const std::string a = identity_yaml(saved), b = identity_yaml(now);
  if (a == b) return;
  std::istringstream sa(a), sb(b);
  std::string la, lb, section;
  while (std::getline(sa, la) && std::getline(sb, lb)) {
    if (!la.empty() && la[0] != ' ') section = la;
    if (la != lb) break;
  }
  auto trim = [](std::string s) { return s.erase(0, s.find_first_not_of(' ')); };
  throw Error(dir + " holds a training run with another config (in " + section + " it has '" +
              trim(la) + "', this config says '" + trim(lb) +
              "'); only the training section may change when resuming, so use a new output "
              "directory");
}

std::unique_ptr<Optimizer> make_optimizer(const TrainingConfig& t, std::vector<Var> params) {
  if (t.optimizer == OptimizerKind::sgd) {
    SgdOptions o;
    o.lr = t.lr;
    o.momentum = t.momentum;
    o.weight_decay = t.weight_decay;
    o.nesterov = t.nesterov;
    return std::make_unique<Sgd>(std::move(params), o);
  }
  AdamOptions o;
  o.lr = t.lr;
  o.beta1 = t.beta1;
  o.beta2 = t.beta2;
  o.eps = t.eps;
  o.weight_decay = t.weight_decay;
  if (t.optimizer == OptimizerKind::adamw) return std::make_unique<AdamW>(std::move(params), o);
  return std::make_unique<Adam>(std::move(params), o);
}

// Copies rows into a reusable TokenBatch (no allocation once its vectors have grown).
void fill(TokenBatch& tb, std::size_t batch, std::size_t len, const std::vector<std::int32_t>& ids,
          const std::vector<std::int32_t>& lengths) {
  tb.batch = static_cast<std::int64_t>(batch);
  tb.len = static_cast<std::int64_t>(len);
  tb.ids.assign(ids.begin(), ids.end());
  tb.lengths.assign(lengths.begin(), lengths.end());
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// "on a, 2 on b": each host once, in rank order, with its rank count when above one.
std::string join_hosts(const std::vector<std::string>& hosts) {
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& h : hosts) {
    auto it = std::find_if(counts.begin(), counts.end(), [&](const auto& c) { return c.first == h; });
    if (it == counts.end()) counts.emplace_back(h, 1);
    else ++it->second;
  }
  std::string out;
  for (const auto& [h, n] : counts)
    out += (out.empty() ? "" : ", ") + (n > 1 ? std::to_string(n) + " on " : "on ") + h;
  return out;
}

const dist::World& single_process() {
  static const dist::World one;  // never initialises MPI: no mpirun variables are read here
  return one;
}

class Run {
 public:
  Run(const TrainConfig& config, const TrainerOptions& options)
      : c_(config), t_(config.training), dir_(config.output),
        world_(options.world ? *options.world : single_process()), leader_(world_.leader()),
        console_(leader_ ? (options.console ? *options.console : std::cerr) : null_console_),
        tty_(options.tty && leader_), factory_(options.factory), on_step_(options.on_step),
        options_stop_(options.stop), rng_(config.training.seed),
        schedule_(LrScheduleOptions::from(config.training)) {}

  TrainResult run();

 private:
  void prepare_directory();
  std::unique_ptr<Tokenizer> side_tokenizer(const SideConfig& side,
                                            const std::vector<std::string>& lines,
                                            const char* file);
  Vocabulary side_vocabulary(const SideConfig& side, const Tokenizer& tok,
                             const std::vector<std::string>& lines, const char* file);
  void load_data();
  void load_images();  // the image classifiers (model.kind ram, fc, cnn)
  void generate_images();  // their training set by data.generate
  void load_image_sequences();  // model.kind image2seq
  // The source batch of corpus entries members: their images for image2seq, else their tokens.
  void fill_source(const Batch& batch, const ImageSequences& images);
  void plan_dev_batches();
  void set_up();
  // The update of one global batch; returns its mean target-token loss (over every rank).
  double train_step(const Batch& batch);
  // Forward and backward of (this rank's share of) a batch, the loss scaled to the whole
  // batch's token count (0: `batch` is the whole batch); returns the mean token loss of
  // `batch`.
  double forward_backward(const Batch& batch, double batch_tokens);
  double classifier_forward_backward(const Batch& batch);
  // Data-parallel: whether any rank was asked to stop or ran out of time (every rank gets
  // the same answer); alone, this process's own.
  void agree(bool& interrupted, bool& out_of_time);
  // Hard attention, data-parallel: the whole batch's per-token NLL from every rank's share
  // (a collective: every rank calls it once per step).
  double whole_batch_nll_mean(std::span<const double> nll, double tokens);
  std::string parameter_checksum() const;
  void check_same_parameters(const char* when) const;
  double dev_score(nlohmann::json& entry, std::string& shown, double train_loss);
  double classifier_dev_score(nlohmann::json& entry, double train_loss, std::string& shown);
  void validate(Progress& progress, double train_loss);
  void save(bool step_checkpoint);
  void mark_unsaved();
  Metadata weights_metadata() const;
  double seconds() const {
    return state_.train_seconds +
           std::chrono::duration<double>(std::chrono::steady_clock::now() - session_start_).count();
  }

  TrainConfig c_;
  const TrainingConfig& t_;
  std::string dir_;
  const dist::World& world_;
  bool leader_;                   // rank 0, or the only process: writes the directory
  std::ostream null_console_{nullptr};  // the console of the other ranks: discards
  std::ostream& console_;
  bool tty_;
  ModelFactory factory_;
  std::function<void(const TrainProgress&)> on_step_;  // TrainerOptions::on_step
  const std::atomic<bool>* options_stop_;             // TrainerOptions::stop
  double last_score_ = 0.0;                            // of the latest validation
  bool resume_ = false;
  bool follower_ = false;  // a rank other than 0: reads what rank 0 wrote into the directory
  bool restarted_ = false;  // removed the leftovers of a run that saved no step
  DirLock lock_;  // held from prepare_directory() to the end of the run

  std::unique_ptr<Tokenizer> src_tok_, tgt_tok_;
  Vocabulary src_vocab_, tgt_vocab_;
  Corpus corpus_, dev_corpus_;
  // By dev corpus position: the references of each dev pair (a tab in a dev target line
  // separates alternatives, e.g. the pronunciations of a word; the loss uses the first).
  std::vector<std::vector<std::string>> dev_refs_;
  std::vector<std::vector<std::size_t>> dev_plan_;

  Rng rng_;  // initialisation, then dropout
  std::unique_ptr<Seq2Seq> model_;
  // model.kind ram, fc and cnn classify images (models/image_classifier.h): the model, the
  // images and their class ids; batches come from image_corpus, one entry per image. module_
  // is whichever model
  // trains: what is saved, loaded and counted.
  const bool images_ = reads_images(c_.model.kind);
  std::unique_ptr<ImageClassifier> classifier_;
  std::unique_ptr<ClassifierShares> shares_;  // its training steps, made at the first one
  ClassifiedImages train_images_, dev_images_;
  // data.generate: the training images drawn here, items placed anew every epoch; then
  // train_images_ holds the labels only and train_pixels() the current epoch's canvases.
  std::unique_ptr<FreshImageSet> fresh_;
  const IdxImages& train_pixels() const {
    return fresh_ ? fresh_->set().images : train_images_.images;
  }
  Module* module_ = nullptr;
  // model.kind image2seq: an encoder-decoder whose sources are images (its source batches carry
  // them, models/image_encoder.h); each image is a corpus entry with its target names.
  const bool image_seq_ = reads_image_sources(c_.model.kind);
  ImageSequences train_seqs_, dev_seqs_;
  std::vector<Var> alpha_trace_;  // training.doubly_stochastic: the steps' attention weights
  std::vector<Var> params_;
  std::unique_ptr<Optimizer> optimizer_;
  std::unique_ptr<BatchSampler> sampler_;
  LrSchedule schedule_;
  TrainingState state_;
  std::chrono::steady_clock::time_point session_start_ = std::chrono::steady_clock::now();
  std::int64_t last_saved_step_ = -1;
  bool marked_unsaved_ = false;  // wrote kUnsavedMarker, to be removed after the first save

  // Hard attention: the samples of the step's forward pass and the REINFORCE baseline.
  bool hard_ = false;
  bool expectation_step_ = false;  // training.hard_soft_mix chose the soft expectation
  HardAttentionTrace trace_;
  ReinforceBaseline baseline_;

  std::unique_ptr<dist::GradientSync> sync_;  // data-parallel runs only

  Arena arena_;
  TokenBatch src_, tgt_in_;
  std::int64_t epoch_ = 0;  // of the batch last trained on, from 0
  double window_loss_ = 0.0;  // token-weighted training loss since the last validation
  std::int64_t window_tokens_ = 0;
};

void Run::prepare_directory() {
  // The directory is locked before anything in it is read, so a second run on it is refused
  // naming the first one's pid instead of resuming its half-written state.
  std::error_code ec;
  if (!fs::exists(dir_)) {
    fs::create_directories(dir_, ec);
    HEED_CHECK(!ec, dir_, ": cannot create the output directory (", ec.message(), ")");
  }
  HEED_CHECK(fs::is_directory(dir_), dir_, ": exists and is not a directory");
  lock_ = DirLock(dir_, "training");
  remove_stale_temporaries(dir_);
  const std::string state_path = path_in(dir_, model_files::kState);
  const std::string marker = path_in(dir_, kUnsavedMarker);
  resume_ = fs::exists(state_path);
  if (resume_) {
    fs::remove(marker, ec);  // left by a kill right after the first save
    check_resumable(load_model_config(dir_), c_, dir_);
    return;
  }
  // No training state: a run that started here saved no step (a config or data error found
  // late, out of memory, Ctrl-C or kill -9 before the first save). What such a run leaves
  // (vocabularies, config, logs) is removed so that the corrected command starts afresh;
  // weights and anything heed does not write are never touched: they stop the run instead,
  // except the weights of such a run, which it marked as unsaved before writing them.
  const bool unsaved = fs::is_regular_file(marker, ec);
  const std::set<std::string> leftovers = {
      model_files::kConfig, model_files::kSrcVocab, model_files::kTgtVocab, model_files::kSrcSpm,
      model_files::kTgtSpm, model_files::kHistory,  model_files::kLog,      DirLock::kFileName};
  std::vector<fs::path> remove;
  for (const auto& entry : fs::directory_iterator(dir_)) {
    const std::string name = entry.path().filename().string();
    if (name == DirLock::kFileName || name == kUnsavedMarker) continue;
    const bool weights = name == model_files::kBest || name == model_files::kLast ||
                         (name == model_files::kCheckpoints && !fs::is_empty(entry.path()));
    HEED_CHECK(!weights || unsaved, dir_, ": holds ", name,
               " but no training state to resume (", model_files::kState,
               "); heed does not overwrite weights: move them away or give a new or empty "
               "output directory");
    const bool ours = (leftovers.count(name) && entry.is_regular_file()) ||
                      (unsaved && (name == model_files::kBest || name == model_files::kLast) &&
                       entry.is_regular_file()) ||
                      (name == model_files::kCheckpoints && entry.is_directory()) ||
                      (entry.is_regular_file() && name.size() > 4 &&
                       name.compare(name.size() - 4, 4, ".tmp") == 0 &&
                       leftovers.count(name.substr(0, name.size() - 4)));
    HEED_CHECK(ours, dir_, ": exists, holds no training state to resume, and holds '", name,
               "', which heed did not write; give a new or empty output directory");
    remove.push_back(entry.path());
  }
  for (const auto& p : remove) fs::remove_all(p);
  if (unsaved) fs::remove(marker);  // last: until then the weights left are known as ours
  if (!remove.empty() || unsaved) restarted_ = true;
}

std::unique_ptr<Tokenizer> Run::side_tokenizer(const SideConfig& side,
                                               const std::vector<std::string>& lines,
                                               const char* file) {
  const std::string dst = path_in(dir_, file);
  if (side.tokenizer != TokenizerKind::sentencepiece) return make_tokenizer(side.tokenizer, side.lowercase);
  if (!resume_ && !follower_) {
    if (!side.spm_model.empty()) {
      HEED_CHECK(fs::is_regular_file(side.spm_model), side.spm_model,
                 ": no such SentencePiece model file");
      std::error_code ec;
      fs::copy_file(side.spm_model, dst + ".tmp", fs::copy_options::overwrite_existing, ec);
      if (!ec) fs::rename(dst + ".tmp", dst, ec);
      if (ec) {
        std::error_code ignored;
        fs::remove(dst + ".tmp", ignored);
        throw Error(dst + ": cannot copy the SentencePiece model " + side.spm_model + " (" +
                    ec.message() + ")");
      }
    } else {
      SentencePieceOptions o;
      o.vocab_size = static_cast<int>(side.spm_vocab_size);
      o.model_type = side.spm_model_type;
      o.character_coverage = side.spm_character_coverage;
      o.lowercase = side.lowercase;
      o.num_threads = t_.threads > 0 ? static_cast<int>(t_.threads) : 2;
      SentencePieceTokenizer::train(lines, dst, o);
    }
  }
  return load_tokenizer(side, dst);
}

Vocabulary Run::side_vocabulary(const SideConfig& side, const Tokenizer& tok,
                                const std::vector<std::string>& lines, const char* file) {
  const std::string path = path_in(dir_, file);
  if (resume_ || follower_) return Vocabulary::load(path);
  VocabularyOptions o;
  o.max_size = static_cast<std::size_t>(side.vocab_max_size);
  o.min_freq = side.vocab_min_freq;
  return Vocabulary::build(count_tokens(lines, tok), o);  // saved once the model is built
}

void Run::load_data() {
  if (images_) {
    load_images();
    return;
  }
  if (image_seq_) {
    load_image_sequences();
    return;
  }
  ParallelText text = read_parallel(c_.data.train_source, c_.data.train_target);
  src_tok_ = side_tokenizer(c_.data.source, text.source, model_files::kSrcSpm);
  tgt_tok_ = side_tokenizer(c_.data.target, text.target, model_files::kTgtSpm);
  src_vocab_ = side_vocabulary(c_.data.source, *src_tok_, text.source, model_files::kSrcVocab);
  tgt_vocab_ = side_vocabulary(c_.data.target, *tgt_tok_, text.target, model_files::kTgtVocab);
  CorpusOptions co;
  co.max_src_len = static_cast<std::size_t>(c_.data.source.max_length);
  co.max_tgt_len = static_cast<std::size_t>(c_.data.target.max_length);
  corpus_ = build_corpus(text, *src_tok_, src_vocab_, *tgt_tok_, tgt_vocab_, co);
  HEED_CHECK(corpus_.size() > 0, c_.data.train_source,
             ": no training pair is left after filtering (", corpus_.stats.summary(),
             "); raise data.source.max_length / data.target.max_length");

  if (c_.data.dev_source.empty()) return;
  ParallelText dev = read_parallel(c_.data.dev_source, c_.data.dev_target);
  if (c_.data.max_dev_sentences > 0 &&
      dev.size() > static_cast<std::size_t>(c_.data.max_dev_sentences)) {
    dev.source.resize(static_cast<std::size_t>(c_.data.max_dev_sentences));
    dev.target.resize(static_cast<std::size_t>(c_.data.max_dev_sentences));
  }
  std::vector<std::vector<std::string>> alternatives(dev.size());
  for (std::size_t i = 0; i < dev.size(); ++i) {
    alternatives[i] = metrics::split_g2p_references(dev.target[i]);
    if (!alternatives[i].empty()) dev.target[i] = alternatives[i].front();
  }
  CorpusOptions dco;  // dev pairs are never dropped for length, except where the model must
  dco.max_src_len = static_cast<std::size_t>(max_source_length(c_.model));
  dev_corpus_ = build_corpus(dev, *src_tok_, src_vocab_, *tgt_tok_, tgt_vocab_, dco);
  HEED_CHECK(dev_corpus_.size() > 0, c_.data.dev_source, ": no dev pair is usable (",
             dev_corpus_.stats.summary(), ")");
  dev_refs_.resize(dev_corpus_.size());
  for (std::size_t k = 0; k < dev_corpus_.size(); ++k) {
    for (const std::string& ref : alternatives[dev_corpus_.index[k]])
      dev_refs_[k].push_back(c_.data.target.lowercase ? to_lower(ref) : ref);
  }
  plan_dev_batches();
}

void Run::plan_dev_batches() {
  BatchOptions bo;
  bo.max_tokens = static_cast<std::size_t>(t_.max_tokens);
  bo.max_sentences = static_cast<std::size_t>(t_.max_sentences);
  bo.shuffle = false;
  bo.pool_size = 0;
  Rng unused(0);
  dev_plan_ = plan_batches(dev_corpus_, bo, unused);
}

void Run::load_images() {
  // The classes are the training targets' names, kept as tgt.vocab.
  if (c_.data.generate.kind) {
    generate_images();
  } else {
    if (resume_ || follower_) tgt_vocab_ = Vocabulary::load(path_in(dir_, model_files::kTgtVocab));
    else tgt_vocab_ = build_class_vocabulary(read_class_names(c_.data.train_target));
    train_images_ = read_classified_images(c_.data.train_images, c_.data.train_target, tgt_vocab_);
  }
  corpus_ = image_corpus(train_images_);
  if (c_.data.dev_images.empty()) return;
  dev_images_ = read_classified_images(c_.data.dev_images, c_.data.dev_target, tgt_vocab_);
  if (c_.data.max_dev_sentences > 0 &&
      dev_images_.labels.size() > static_cast<std::size_t>(c_.data.max_dev_sentences))
    dev_images_.labels.resize(static_cast<std::size_t>(c_.data.max_dev_sentences));
  dev_corpus_ = image_corpus(dev_images_);
  plan_dev_batches();
}

void Run::generate_images() {
  const DataConfig::Generate& g = c_.data.generate;
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
  if (resume_ || follower_) tgt_vocab_ = Vocabulary::load(path_in(dir_, model_files::kTgtVocab));
  else tgt_vocab_ = build_class_vocabulary(names);
  train_images_ = {};
  train_images_.labels.reserve(names.size());
  for (const std::string& name : names) train_images_.labels.push_back(tgt_vocab_.id(name));
  HEED_CHECK(std::all_of(train_images_.labels.begin(), train_images_.labels.end(),
                         [](std::int32_t id) { return id >= Vocabulary::kSpecials; }),
             "data.generate: a class of the generated images is missing from ",
             path_in(dir_, model_files::kTgtVocab));
}

void Run::load_image_sequences() {
  // The target vocabulary holds the class names of the training targets.
  tgt_vocab_ = resume_ || follower_
                   ? Vocabulary::load(path_in(dir_, model_files::kTgtVocab))
                   : build_name_vocabulary(read_name_sequences(c_.data.train_target));
  train_seqs_ = read_image_sequences(c_.data.train_images, c_.data.train_target, tgt_vocab_);
  corpus_ = image_sequence_corpus(train_seqs_);
  if (c_.data.dev_images.empty()) return;
  dev_seqs_ = read_image_sequences(c_.data.dev_images, c_.data.dev_target, tgt_vocab_);
  dev_corpus_ = image_sequence_corpus(dev_seqs_, static_cast<std::size_t>(c_.data.max_dev_sentences));
  plan_dev_batches();
}

void Run::fill_source(const Batch& batch, const ImageSequences& images) {
  if (image_seq_)
    src_ = image_source(classifier_images(images.images, batch.members, t_.dtype), c_.model.image);
  else
    fill(src_, batch.size, batch.src_len, batch.src, batch.src_lengths);
}

double Run::forward_backward(const Batch& batch, double batch_tokens) {
  if (images_) return classifier_forward_backward(batch);
  double loss = 0.0;
  {
    // training.precision bf16: the step's products round their inputs to bfloat16. The
    // precision goes with the forward pass into every op that multiplies, and each op's
    // backward keeps it.
    if (t_.precision == kernels::MatmulPrecision::bf16) kernels::require_bf16_products();
    ArenaScope scope(&arena_);
    fill_source(batch, train_seqs_);
    fill(tgt_in_, batch.size, batch.tgt_len, batch.tgt_in, batch.tgt_lengths);
    // Logits at the real target positions only: the output layers skip the padding.
    Var logits = model_->forward_packed(src_, tgt_in_, t_.precision);
    const std::vector<std::int32_t> targets = pack_targets(batch.tgt_out, tgt_in_);
    CrossEntropyResult ce = cross_entropy_with_count(logits, targets, kPad, t_.label_smoothing);
    const auto count = static_cast<double>(ce.count);
    loss = ce.loss.value().item();
    // A rank's share of a data-parallel batch: its mean weighs count / batch_tokens, so that
    // the sum over the ranks is the gradient of the whole batch's mean.
    Var total = batch_tokens > 0 ? scale(ce.loss, count / batch_tokens) : ce.loss;
    if (hard_ && !expectation_step_) {
      // REINFORCE for the sampled attention positions (docs/MODELS.md#hard-attention); the
      // reported loss stays the cross-entropy. A rank's share divides by the whole batch's
      // tokens and updates the baseline with the whole batch's mean NLL, as one process would.
      const std::vector<double> nll = sentence_nll(logits.value(), targets, tgt_in_.lengths);
      ReinforceOptions ro{t_.reinforce_weight, t_.entropy_weight, t_.baseline_decay};
      std::optional<double> mean;
      if (batch_tokens > 0) mean = whole_batch_nll_mean(nll, count);
      total = add(total, reinforce_loss(trace_, nll, tgt_in_.lengths,
                                        batch_tokens > 0 ? batch_tokens : count, ro, baseline_,
                                        mean));
      trace_.clear();
    }
    if (t_.doubly_stochastic > 0) {  // image2seq, soft attention (checked in set_up)
      total = add(total, doubly_stochastic_penalty(alpha_trace_, tgt_in_.lengths, src_.lengths,
                                                   t_.doubly_stochastic,
                                                   batch_tokens > 0 ? batch_tokens : count));
      alpha_trace_.clear();
    }
    Tape::current().backward(total);
  }
  arena_.reset();
  return loss;
}

double Run::classifier_forward_backward(const Batch& batch) {
  // An image classifier's loss (train/ram_loss.h): cross-entropy and, for the recurrent
  // attention model's sampled locations, REINFORCE with the learned baseline and the
  // baseline's squared error; with two or more threads the batch's shares run side by side
  // (train/classifier_shares.h). The reported loss is the cross-entropy.
  if (t_.precision == kernels::MatmulPrecision::bf16) kernels::require_bf16_products();
  if (!shares_)
    shares_ = std::make_unique<ClassifierShares>(*classifier_, [this] {
      Rng unused;  // the replica's initial values are replaced by the model's
      return make_image_classifier(c_.model, classifier_->channels(), unused, t_.dtype);
    });
  double loss = 0.0;
  {
    ArenaScope scope(&arena_);
    const Tensor x = classifier_images(train_pixels(), batch.members, t_.dtype);
    std::vector<std::int32_t> labels(batch.tgt_out.begin(), batch.tgt_out.end());
    for (std::int32_t& y : labels) y -= Vocabulary::kSpecials;
    loss = shares_->forward_backward(x, labels, rng_, t_.precision, t_.reinforce_weight)
               .classification;
  }
  arena_.reset();
  return loss;
}

double Run::train_step(const Batch& batch) {
  optimizer_->zero_grad();
  if (hard_ && t_.hard_soft_mix > 0) {
    // training.hard_soft_mix: whether this batch reads the soft expectation, from the seed and
    // the step alone, so every rank and a resumed run decide alike.
    Rng coin(t_.seed ^ (0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(state_.step + 1)));
    expectation_step_ = coin.uniform() < t_.hard_soft_mix;
    model_->set_hard_attention_expectation(expectation_step_);
  }
  const auto batch_tokens = static_cast<double>(batch.tgt_tokens);
  double loss = 0.0;
  if (!sync_) {
    loss = forward_backward(batch, 0.0);  // the whole batch: its mean as it is
  } else {
    // Every rank holds the same global batch; it trains on every size-th sentence from its
    // rank (lengths are sorted within a batch, so the shares have about as many tokens).
    std::vector<std::size_t> mine;
    for (std::size_t i = static_cast<std::size_t>(world_.rank()); i < batch.members.size();
         i += static_cast<std::size_t>(world_.size()))
      mine.push_back(batch.members[i]);
    sync_->begin_step();
    double sums[2] = {0.0, 0.0};  // token losses, tokens
    if (!mine.empty()) {
      const Batch share = make_batch(corpus_, mine);
      sums[1] = static_cast<double>(share.tgt_tokens);
      sums[0] = forward_backward(share, batch_tokens) * sums[1];
    } else if (hard_ && !expectation_step_) {  // no sentence here: in the sum, same baseline
      update_baseline(baseline_, whole_batch_nll_mean({}, 0.0), t_.baseline_decay);
    }
    sync_->finish();
    world_.allreduce_sum(sums, 2);
    HEED_CHECK(sums[1] == batch_tokens, world_.describe(), ": the ranks' shares hold ", sums[1],
               " target tokens, the batch ", batch_tokens);
    loss = sums[0] / batch_tokens;
  }
  HEED_CHECK(std::isfinite(loss), "step ", state_.step + 1, ": the training loss is ", loss,
             "; lower training.lr or set training.clip_norm");
  if (t_.clip_norm > 0) clip_grad_norm(params_, t_.clip_norm);
  optimizer_->step();
  return loss;
}

double Run::whole_batch_nll_mean(std::span<const double> nll, double tokens) {
  double sums[2] = {0.0, tokens};
  for (double v : nll) sums[0] += v;
  world_.allreduce_sum(sums, 2);
  return sums[1] > 0 ? sums[0] / sums[1] : 0.0;
}

void Run::agree(bool& interrupted, bool& out_of_time) {
  if (!world_.distributed()) return;
  double any[2] = {interrupted ? 1.0 : 0.0, out_of_time ? 1.0 : 0.0};
  world_.allreduce_sum(any, 2);
  interrupted = any[0] > 0.0;
  out_of_time = any[1] > 0.0;
}

std::string Run::parameter_checksum() const {
  Checksum sum;
  for (const Var& p : params_)
    sum.update(p.value().raw(), static_cast<std::size_t>(p.value().numel()) * dtype_size(p.dtype()));
  return sum.str();
}

void Run::check_same_parameters(const char* when) const {
  if (!world_.distributed()) return;
  const std::string mine = parameter_checksum();
  std::string leaders = mine;
  world_.broadcast(leaders);
  HEED_CHECK(mine == leaders, world_.describe(), ": the parameters differ from rank 0's ", when,
             " (", mine, " against ", leaders,
             "); every rank must see the same output directory and the same heed");
}

double Run::classifier_dev_score(nlohmann::json& entry, double train_loss, std::string& shown) {
  // The test-time prediction on the dev images; for ram the mean locations, or
  // model.sample_paths paths (random ones with model.random_locations) drawn from a generator
  // of their own (the same paths at every validation).
  NoGradGuard no_grad;
  classifier_->eval();
  Rng paths(t_.seed);
  double nll = 0.0;
  std::int64_t wrong = 0, count = 0;
  const std::int64_t C = classifier_->classes();
  for (const auto& members : dev_plan_) {
    {
      ArenaScope scope(&arena_);
      const ClassPrediction p = classifier_->predict(
          Var(classifier_images(dev_images_.images, members, t_.dtype)), c_.model.ram.sample_paths,
          paths);
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
  entry["step"] = state_.step;
  entry["epoch"] = epoch_ + 1;
  entry["train_loss"] = train_loss;
  entry["dev_loss"] = loss;
  entry["error"] = error;
  shown = "loss " + fmt("%.4f", loss) + ", error " + fmt("%.2f", error) + "%";
  return t_.metric == DevMetric::error ? error : loss;
}

double Run::dev_score(nlohmann::json& entry, std::string& shown, double train_loss) {
  if (images_) return classifier_dev_score(entry, train_loss, shown);
  double loss_sum = 0.0;
  std::int64_t count = 0;
  const bool decode = t_.metric != DevMetric::loss;
  std::vector<std::string> hyps(decode && !image_seq_ ? dev_corpus_.size() : 0);
  std::int64_t wrong = 0;  // image2seq: the dev images whose decoded names differ from the target
  {
    NoGradGuard no_grad;
    model_->eval();
    DecodeOptions dopt;
    dopt.len_a = static_cast<double>(t_.max_output_factor);
    dopt.len_b = 10.0;
    if (image_seq_) {  // the longest dev target with EOS, and a few steps more
      std::size_t longest = 0;
      for (const auto& y : dev_corpus_.tgt) longest = std::max(longest, y.size());
      dopt.max_len = static_cast<std::int64_t>(longest) + 5;
    }
    FrozenModel frozen(*model_, dopt.precision);  // weights packed once for all dev batches
    for (const auto& members : dev_plan_) {
      const Batch b = make_batch(dev_corpus_, members);
      {
        ArenaScope scope(&arena_);
        fill_source(b, dev_seqs_);
        fill(tgt_in_, b.size, b.tgt_len, b.tgt_in, b.tgt_lengths);
        Var logits = model_->forward_packed(src_, tgt_in_);
        CrossEntropyResult ce =
            cross_entropy_with_count(logits, pack_targets(b.tgt_out, tgt_in_), kPad, 0.0);
        loss_sum += ce.loss.value().item() * static_cast<double>(ce.count);
        count += ce.count;
        if (decode) {
          DecodeResult r = greedy_decode(*model_, src_, dopt);
          for (std::size_t i = 0; i < b.size; ++i)
            if (image_seq_) wrong += r.best(i).tokens != dev_corpus_.tgt[b.members[i]];
            else hyps[b.members[i]] = tgt_tok_->decode(tgt_vocab_.decode(r.best(i).tokens));
        }
      }
      arena_.reset();
    }
    model_->train();
  }
  const double loss = count ? loss_sum / static_cast<double>(count) : 0.0;
  entry["step"] = state_.step;
  entry["epoch"] = epoch_ + 1;  // counted from 1, like the log and heed info
  entry["train_loss"] = train_loss;
  entry["dev_loss"] = loss;
  entry["perplexity"] = std::exp(loss);
  double score = loss;
  shown = "loss " + fmt("%.4f", loss) + ", ppl " + fmt("%.2f", std::exp(loss));
  if (t_.metric == DevMetric::error) {  // image2seq (the config allows error for no other kind)
    score = dev_corpus_.size() ? 100.0 * static_cast<double>(wrong) /
                                     static_cast<double>(dev_corpus_.size())
                               : 0.0;
    entry["error"] = score;
    shown += ", sequence error " + fmt("%.2f", score) + "%";
  } else if (t_.metric == DevMetric::bleu) {
    score = metrics::corpus_bleu(hyps, dev_refs_).score;
    entry["bleu"] = score;
    shown += ", BLEU " + fmt("%.2f", score);
  } else if (t_.metric == DevMetric::wer) {
    std::vector<std::string> first;
    for (auto& refs : dev_refs_) first.push_back(refs.front());
    score = metrics::corpus_wer(hyps, first);
    entry["wer"] = score;
    shown += ", WER " + fmt("%.2f", score);
  } else if (t_.metric == DevMetric::g2p) {
    const metrics::G2pScore g = metrics::g2p_score(hyps, dev_refs_);
    score = g.wer;
    entry["wer"] = g.wer;
    entry["per"] = g.per;
    shown += ", WER " + fmt("%.2f", g.wer) + ", PER " + fmt("%.2f", g.per);
  }
  return score;
}

void Run::validate(Progress& progress, double train_loss) {
  // Rank 0 decodes the dev set; every rank takes its score, so that early stopping and the
  // learning rate schedule stay the same on all of them.
  nlohmann::json entry;
  std::string shown;
  double score = leader_ ? dev_score(entry, shown, train_loss) : 0.0;
  world_.broadcast(&score, sizeof score);
  last_score_ = score;
  const bool higher = metric_higher_is_better(t_.metric);
  const bool better = !state_.has_best || (higher ? score > state_.best_score : score < state_.best_score);
  if (better) {
    state_.has_best = true;
    state_.best_score = score;
    state_.best_step = state_.step;
    state_.bad_validations = 0;
    if (leader_) {
      mark_unsaved();
      save_module(*module_, path_in(dir_, model_files::kBest), weights_metadata());
    }
  } else {
    ++state_.bad_validations;
  }
  const bool reduced = schedule_.on_validation(score);
  if (!leader_) return;
  entry["lr"] = schedule_.lr(state_.step + 1, seconds());
  entry["best"] = better;
  entry["seconds"] = seconds();
  state_.history.push_back(entry.dump());
  std::string history;  // rewritten whole, so that a failed write leaves the previous file
  for (const auto& h : state_.history) history += h + "\n";
  write_file_atomically(path_in(dir_, model_files::kHistory), history);
  std::string line = "validation at step " + std::to_string(state_.step) + ": " + shown;
  line += better ? " (new best)"
                 : " (best " + fmt(t_.metric == DevMetric::loss ? "%.4f" : "%.2f", state_.best_score) +
                       " at step " + std::to_string(state_.best_step) + ")";
  if (reduced) line += "; learning rate reduced to " + fmt("%.3g", schedule_.lr(state_.step + 1, seconds()));
  progress.message(line);
}

Metadata Run::weights_metadata() const {
  return {{"format", "pt"}, {"heed.step", std::to_string(state_.step)},
          {"heed.model", std::string(enum_name(c_.model.kind))}};
}

void Run::mark_unsaved() {
  if (resume_ || last_saved_step_ >= 0 || marked_unsaved_) return;
  write_file_atomically(path_in(dir_, kUnsavedMarker),
                        "heed train started here and has not saved its training state yet; "
                        "the next run removes what it wrote\n");
  marked_unsaved_ = true;
}

void Run::save(bool step_checkpoint) {
  check_same_parameters("at a save");
  if (!leader_) {
    last_saved_step_ = state_.step;
    return;
  }
  const Metadata meta = weights_metadata();
  mark_unsaved();
  if (step_checkpoint && t_.keep_checkpoints > 0 &&
      (state_.checkpoints.empty() || state_.checkpoints.back() != state_.step)) {
    const fs::path checkpoints = fs::path(dir_) / model_files::kCheckpoints;
    std::error_code ec;
    fs::create_directories(checkpoints, ec);
    HEED_CHECK(!ec, checkpoints.string(), ": cannot create the directory (", ec.message(), ")");
    save_module(*module_, step_checkpoint_path(dir_, state_.step), meta);
    state_.checkpoints.push_back(state_.step);
    while (static_cast<std::int64_t>(state_.checkpoints.size()) > t_.keep_checkpoints) {
      std::error_code ec;
      fs::remove(step_checkpoint_path(dir_, state_.checkpoints.front()), ec);
      state_.checkpoints.erase(state_.checkpoints.begin());
    }
  }
  save_module(*module_, path_in(dir_, model_files::kLast), meta);
  if (dev_plan_.empty()) save_module(*module_, path_in(dir_, model_files::kBest), meta);
  state_.position = sampler_->position();
  state_.rng_state = rng_.state();
  state_.schedule_state = schedule_.state();
  state_.window_loss = window_loss_;
  state_.window_tokens = window_tokens_;
  state_.has_baseline = baseline_.has_value;
  state_.baseline = baseline_.per_token;
  TrainingState s = state_;
  s.train_seconds = seconds();
  save_training_state(path_in(dir_, model_files::kState), *module_, *optimizer_, s);
  last_saved_step_ = state_.step;
  if (marked_unsaved_) {
    std::error_code ec;
    fs::remove(path_in(dir_, kUnsavedMarker), ec);
    marked_unsaved_ = false;
  }
}

void Run::set_up() {
  load_data();

  ModelConfig& mc = c_.model;
  auto set_size = [&](std::int64_t& field, std::size_t size, const char* key) {
    const auto n = static_cast<std::int64_t>(size);
    HEED_CHECK(field == 0 || field == n, "model.", key, " is ", field, " but the vocabulary has ",
               n, " entries; leave it 0 (it is set from the vocabulary)");
    field = n;
  };
  if (!images_ && !image_seq_) set_size(mc.src_vocab, src_vocab_.size(), "src_vocab");
  set_size(mc.tgt_vocab, tgt_vocab_.size(), "tgt_vocab");
  if (images_) {  // the image classifiers: the size of the training images
    const IdxImages& pixels = train_pixels();
    for (auto [field, n, key] : {std::tuple{&mc.classifier.image_height, pixels.rows,
                                            "image_height"},
                                 std::tuple{&mc.classifier.image_width, pixels.cols,
                                            "image_width"}}) {
      HEED_CHECK(*field == 0 || *field == n, "model.", key, " is ", *field, " but the training "
                 "images are ", pixels.rows, "x", pixels.cols,
                 "; leave it 0 (it is set from the training images)");
      *field = n;
    }
  }
  validate_model_config(mc);  // sizes against memory too, before anything is allocated
  const DType dtype = t_.dtype;
  if (images_) {
    HEED_CHECK(!world_.distributed(), "model.kind ", enum_name(mc.kind), " trains in one "
               "process; run heed train without mpirun");
    classifier_ = make_image_classifier(mc, 1, rng_, dtype);
    module_ = classifier_.get();
  } else {
    model_ = factory_ ? factory_(mc, rng_, dtype) : build_model(mc, rng_, dtype);
    model_->set_rng(&rng_);
    hard_ = mc.attention_mode == AttentionMode::hard;
    if (hard_) model_->set_hard_attention_trace(&trace_);
    HEED_CHECK(t_.doubly_stochastic == 0 ||
                   (image_seq_ && mc.attention_mode == AttentionMode::soft),
               "training.doubly_stochastic: the penalty is on the soft attention weights of "
               "model.kind image2seq (model.attention.mode soft), not ", enum_name(mc.kind),
               " with mode ", enum_name(mc.attention_mode), "; set it to 0");
    if (t_.doubly_stochastic > 0) model_->set_attention_trace(&alpha_trace_);
    module_ = model_.get();
  }
  HEED_CHECK(t_.hard_soft_mix == 0 || hard_, "training.hard_soft_mix: hard attention only");
  module_->train();
  params_ = module_->parameters();
  {
    ArenaScope heap(nullptr);  // optimizer state must outlive every batch
    optimizer_ = make_optimizer(t_, params_);
  }
  BatchOptions bo;
  bo.max_tokens = static_cast<std::size_t>(t_.max_tokens);
  bo.max_sentences = static_cast<std::size_t>(t_.max_sentences);
  bo.seed = t_.seed;
  sampler_ = std::make_unique<BatchSampler>(corpus_, bo);
  if (!resume_ && leader_) {  // every check has passed: now the directory is written
    if (!images_ && !image_seq_) src_vocab_.save(path_in(dir_, model_files::kSrcVocab));
    tgt_vocab_.save(path_in(dir_, model_files::kTgtVocab));
  }

  if (resume_) {
    state_ = load_training_state(path_in(dir_, model_files::kState), *module_, *optimizer_);
    sampler_->set_position(state_.position);
    rng_.set_state(state_.rng_state);
    schedule_.set_state(state_.schedule_state);
    window_loss_ = state_.window_loss;  // the train_loss of the next validation goes on
    window_tokens_ = state_.window_tokens;
    if (!state_.has_window) {  // a state from before: its history counted epochs from 0
      for (std::string& h : state_.history) {
        nlohmann::json entry = nlohmann::json::parse(h, nullptr, false);
        if (entry.is_object() && entry.contains("epoch") && entry["epoch"].is_number_integer())
          entry["epoch"] = entry["epoch"].get<std::int64_t>() + 1;
        if (!entry.is_discarded()) h = entry.dump();
      }
      state_.has_window = true;
    }
    baseline_ = {state_.has_baseline, state_.baseline};
    if (!leader_) return;
    std::string history;
    for (const auto& h : state_.history) history += h + "\n";
    write_file_atomically(path_in(dir_, model_files::kHistory), history);
  }
  if (leader_) write_file_atomically(path_in(dir_, model_files::kConfig), to_yaml(c_));
}


TrainResult Run::run() {
  if (t_.threads > 0) kernels::set_num_threads(static_cast<int>(t_.threads));
  // Rank 0 prepares the directory (lock, tokenizers, vocabularies, config) and tells the
  // others whether it could; they then read what it wrote, as a resumed run would.
  int ready = 0;
  if (leader_) {
    try {
      prepare_directory();
      set_up();
    } catch (...) {
      world_.broadcast(&ready, sizeof ready);
      throw;
    }
    ready = 1;
    world_.broadcast(&ready, sizeof ready);
  } else {
    world_.broadcast(&ready, sizeof ready);
    HEED_CHECK(ready == 1, world_.describe(),
               ": rank 0 could not start the run (its message above says why)");
    follower_ = true;
    resume_ = fs::exists(path_in(dir_, model_files::kState));
    set_up();
  }
  if (world_.distributed()) {
    sync_ = std::make_unique<dist::GradientSync>(
        world_, params_, static_cast<std::size_t>(t_.allreduce_bucket_mb * 1048576.0));
    // Each rank its own dropout masks (the same initialisation came from the same seed).
    if (!leader_)
      rng_ = Rng(t_.seed ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(world_.rank())) ^
                 static_cast<std::uint64_t>(state_.step));
  }
  check_same_parameters(resume_ ? "after loading the training state" : "after initialisation");
  const ModelConfig& mc = c_.model;
  const std::string log_path = path_in(dir_, model_files::kLog);

  std::int64_t total = t_.max_steps;
  const auto epoch_steps =
      t_.max_epochs * static_cast<std::int64_t>(sampler_->batches_in_epoch());
  if (t_.max_epochs > 0 && (total == 0 || epoch_steps < total)) total = epoch_steps;
  ProgressOptions po;
  po.tty = tty_;
  po.log_every = t_.log_every;
  po.total_steps = total;
  if (t_.max_seconds > 0) po.seconds_left = std::max(0.0, t_.max_seconds - seconds());
  if (leader_) po.log_path = log_path;
  Progress progress(console_, po);
  const std::string data =
      images_ ? std::to_string(train_pixels().count) + " training images of " +
                    std::to_string(train_pixels().rows) + "x" +
                    std::to_string(train_pixels().cols) + ", " +
                    std::to_string(classifier_->classes()) + " classes" +
                    (fresh_ ? ", generated (" + std::string(enum_name(*c_.data.generate.kind)) +
                                  "), placed anew every epoch"
                            : std::string())
          : image_seq_
              ? std::to_string(train_seqs_.images.count) + " training images of " +
                    std::to_string(train_seqs_.images.rows) + "x" +
                    std::to_string(train_seqs_.images.cols) + ", target vocabulary " +
                    std::to_string(tgt_vocab_.size())
              : corpus_.stats.summary() + "; vocabularies: source " +
                    std::to_string(src_vocab_.size()) + ", target " +
                    std::to_string(tgt_vocab_.size());
  progress.message(data + "; " + std::string(enum_name(mc.kind)) + " model with " +
                   std::to_string(module_->num_parameters()) + " parameters");
  if (restarted_)
    progress.message(dir_ + " held the files of an earlier run that saved no step; removed them "
                     "and started afresh");
  if (world_.distributed())
    progress.message("data-parallel over " + std::to_string(world_.size()) + " ranks (" +
                     join_hosts(world_.hosts()) + "); " +
                     std::to_string(sync_->stats().buckets) +
                     (sync_->stats().buckets == 1 ? " gradient bucket, " : " gradient buckets, ") +
                     fmt("%.2f", static_cast<double>(sync_->stats().bytes) / 1048576.0) +
                     " MiB summed per step");
  if (resume_)
    progress.message("resuming " + dir_ + " at step " + std::to_string(state_.step) + " (epoch " +
                     std::to_string(state_.position.epoch + 1) + ")");

  const std::int64_t save_every = t_.save_every > 0 ? t_.save_every : t_.validate_every;
  const bool has_dev = !dev_plan_.empty();
  TrainOutcome outcome = TrainOutcome::finished;
  std::string reason;
  for (;;) {
    bool interrupted =
        stop_requested() || (options_stop_ && options_stop_->load(std::memory_order_relaxed));
    bool out_of_time = t_.max_seconds > 0 && seconds() >= t_.max_seconds;
    agree(interrupted, out_of_time);  // data-parallel: all ranks stop at the same step
    if (interrupted) {
      outcome = TrainOutcome::interrupted;
      reason = "interrupted";
      break;
    }
    if (t_.max_steps > 0 && state_.step >= t_.max_steps) {
      reason = "reached max_steps " + std::to_string(t_.max_steps);
      break;
    }
    if (t_.max_epochs > 0 && sampler_->epoch() >= static_cast<std::uint64_t>(t_.max_epochs)) {
      reason = "reached max_epochs " + std::to_string(t_.max_epochs);
      break;
    }
    if (out_of_time) {
      reason = "reached max_seconds " + fmt("%g", t_.max_seconds);
      break;
    }
    if (has_dev && t_.early_stopping > 0 && state_.bad_validations >= t_.early_stopping) {
      outcome = TrainOutcome::early_stopped;
      reason = "early stopping: no improvement in " + std::to_string(t_.early_stopping) +
               " validations";
      break;
    }
    const std::int64_t epoch = static_cast<std::int64_t>(sampler_->epoch());
    epoch_ = epoch;
    if (fresh_) fresh_->move_to(epoch);  // data.generate: this epoch's placements
    std::optional<Batch> batch = sampler_->next();
    if (!batch) {
      progress.message("epoch " + std::to_string(epoch + 1) + " done at step " +
                       std::to_string(state_.step));
      continue;
    }
    const double lr = schedule_.lr(state_.step + 1, seconds());
    optimizer_->set_lr(lr);
    const double loss = train_step(*batch);
    ++state_.step;
    const auto tokens = static_cast<std::int64_t>(batch->tgt_tokens);
    state_.target_tokens += tokens;
    window_loss_ += loss * static_cast<double>(tokens);
    window_tokens_ += tokens;
    progress.step(state_.step, epoch, loss, tokens, lr);
    TrainProgress event;
    event.step = state_.step;
    event.total_steps = total;
    event.epoch = epoch;
    event.loss = loss;
    event.lr = lr;
    if (has_dev && state_.step % t_.validate_every == 0) {
      validate(progress, window_tokens_ ? window_loss_ / static_cast<double>(window_tokens_) : 0.0);
      window_loss_ = 0.0;
      window_tokens_ = 0;
      event.validated = true;
      event.dev_score = last_score_;
      event.new_best = state_.best_step == state_.step;
    }
    if (on_step_ && leader_) {
      event.seconds = seconds();
      on_step_(event);
    }
    if (state_.step % save_every == 0) save(true);
  }
  // A run that never validated still leaves a best model.
  if (has_dev && !state_.has_best && outcome != TrainOutcome::interrupted && state_.step > 0)
    validate(progress, window_tokens_ ? window_loss_ / static_cast<double>(window_tokens_) : 0.0);
  state_.stop_reason = outcome == TrainOutcome::interrupted ? "" : reason;
  if (state_.step > 0) save(false);  // also records the stop reason
  std::string after;
  if (outcome == TrainOutcome::interrupted)
    after = resume_ || last_saved_step_ >= 0 ? "; the training state is saved, run the same command to resume"
                                  : "; nothing was saved (no step was made), run the same command "
                                    "to start again";
  progress.message("stopped at step " + std::to_string(state_.step) + ": " + reason + after);
  if (sync_ && sync_->stats().steps > 0) {
    const dist::SyncStats& st = sync_->stats();
    const double per_step = static_cast<double>(st.steps);
    progress.message(
        "data-parallel: " + fmt("%.1f", 1e3 * st.wait_seconds / per_step) +
        " ms per step waiting for the gradient sums after the backward pass; " +
        fmt("%.1f", static_cast<double>(st.started_in_backward) / per_step) + " of " +
        std::to_string(st.buckets) + " buckets started during it");
  }
  TrainResult r;
  r.outcome = outcome;
  r.step = state_.step;
  r.has_best = state_.has_best;
  r.best_score = state_.best_score;
  r.best_step = state_.best_step;
  return r;
}

}  // namespace

void check_before_training(const TrainConfig& config) {
  ModelConfig mc = config.model;
  mc.src_vocab = std::max<std::int64_t>(mc.src_vocab, 5);
  mc.tgt_vocab = std::max<std::int64_t>(mc.tgt_vocab, 5);
  // The image size comes with the data: unset, the largest accepted stands in for it.
  if (mc.classifier.image_height == 0) mc.classifier.image_height = 4096;
  if (mc.classifier.image_width == 0) mc.classifier.image_width = 4096;
  validate_model_config(mc);
}

TrainResult train(const TrainConfig& config, const TrainerOptions& options) {
  Run run(config, options);
  return run.run();
}

void request_stop() { g_stop.store(true); }
bool stop_requested() { return g_stop.load(); }
void clear_stop_request() { g_stop.store(false); }

}  // namespace heed
