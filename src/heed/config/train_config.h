#pragma once
// TrainConfig: everything `heed train` reads from its YAML file (docs/CONFIG.md lists every
// key). Parsing is strict and happens once, into types: an unknown key, a key given twice, a
// value of the wrong type or out of range is a heed::Error naming the key and the file's line ("cfg.yaml:12: training.lr: expected a
// number, got 'fast'"); `--set key=value` overrides are applied before checking.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "heed/config/training_choices.h"
#include "heed/data/fashion_mnist.h"
#include "heed/data/image_sets.h"
#include "heed/data/sentencepiece_tokenizer.h"
#include "heed/data/tokenizer.h"
#include "heed/kernels/precision.h"
#include "heed/models/model_config.h"
#include "heed/tensor/dtype.h"

namespace heed {

// How one side (source or target) is split into tokens and mapped to ids.
struct SideConfig {
  TokenizerKind tokenizer = TokenizerKind::chars;
  bool lowercase = false;
  std::string spm_model;                // an existing SentencePiece .model; "" = train one
  std::int64_t spm_vocab_size = 8000;   // when training one
  SpmModelType spm_model_type = SpmModelType::unigram;
  double spm_character_coverage = 1.0;
  std::int64_t vocab_max_size = 0;      // including the 4 specials; 0 = no limit
  std::int64_t vocab_min_freq = 1;
  std::int64_t max_length = 100;        // longest training sequence kept (with EOS); 0 = any
};

struct DataConfig {
  std::string train_source, train_target;  // required (model.kind ram: train_images, train_target, or generate)
  std::string dev_source, dev_target;      // optional (both or neither)
  // model.kind ram: gzipped IDX image files as `heed data images` writes them; the targets
  // (train_target, dev_target) hold each image's class name (docs/DATA.md#generated-image-sets).
  std::string train_images, dev_images;
  // data.generate (ram, fc, cnn): instead of train_images and train_target, the training set
  // is drawn by heed from Fashion-MNIST's training images (options as `heed data images`) and
  // every item placed anew at each epoch (data/fresh_image_set.h). No kind = read train_images.
  struct Generate {
    std::optional<ImageSetKind> kind;  // translated or cluttered
    std::string source = kFashionMnistDefaultDir;
    std::int64_t count = 60000;
    std::int64_t size = 0;  // 0 = 60
    std::int64_t pieces = 4, piece_size = 8;
    std::uint64_t seed = 1234;
  } generate;
  // model.kind memn2n: bAbI stories and questions (data/babi.h;
  // docs/DATA.md#babi-memory-networks): the directory of the tasks' qa<N>_*_train.txt files,
  // which tasks, and the share of each task's training questions kept for validation (drawn
  // with split_seed).
  struct Babi {
    std::string dir;
    std::string tasks = "all";
    double dev_fraction = 0.1;
    std::uint64_t split_seed = 1;
  } babi;
  // model.kind las (docs/DATA.md#speech-manifests): .tsv manifests, per line a WAV file's path
  // (relative to the manifest's folder) TAB its transcript, and how the audio becomes log-mel
  // frames (audio/log_mel.h: 25 ms windows every 10 ms at rate; per-utterance normalisation).
  std::string train_manifest, dev_manifest;
  struct Audio {
    std::int64_t rate = 16000;  // Hz: every file is resampled to it
    std::int64_t mels = 80;     // log-mel bins per frame
    bool normalize = true;      // each bin to mean 0, variance 1 over the utterance
    std::int64_t stack = 1;     // frames joined k at a time (mels * stack values a frame)
  } audio;
  std::int64_t max_dev_sentences = 0;      // first N dev pairs; 0 = all
  // One SentencePiece model for both sides (data.source's spm_* keys), trained on the source
  // and target training lines together, so a word is cut alike on both sides.
  bool spm_joint = false;
  SideConfig source, target;
};

struct TrainingConfig {
  OptimizerKind optimizer = OptimizerKind::adam;
  double lr = 1e-3;
  double beta1 = 0.9, beta2 = 0.999, eps = 1e-8;
  double weight_decay = 0.0;
  double momentum = 0.0;  // sgd
  bool nesterov = false;  // sgd
  ScheduleKind schedule = ScheduleKind::constant;
  double decay_factor = 0.5;          // plateau: lr *= decay_factor
  std::int64_t plateau_patience = 2;  // plateau: validations without improvement
  double min_lr = 0.0;                // plateau: floor
  std::int64_t warmup_steps = 1000;   // warmup
  std::int64_t decay_steps = 10000;   // step: lr *= decay_factor every decay_steps updates
  DecayKind decay = DecayKind::inverse_sqrt;  // warmup
  double clip_norm = 1.0;             // 0 = no clipping
  ClipScope clip_scope = ClipScope::global;  // the norm clipped: all gradients', or each one's
  double label_smoothing = 0.0;
  std::int64_t max_tokens = 4096;     // batch budget, padding included
  std::int64_t max_sentences = 0;     // 0 = no limit
  std::int64_t sort_pool = 8192;      // pairs sorted by length together; 0 = the whole corpus
  std::int64_t max_steps = 0;         // 0 = no limit (max_epochs decides)
  std::int64_t max_epochs = 10;       // 0 = no limit (max_steps decides)
  double max_seconds = 0;             // 0 = no limit; a training-time budget (not bit-repeatable)
  std::int64_t validate_every = 1000; // steps
  DevMetric metric = DevMetric::loss;
  std::int64_t max_output_factor = 2; // greedy dev decoding: at most factor*|x| + 10 tokens
  std::int64_t early_stopping = 0;    // validations without improvement; 0 = off
  std::int64_t save_every = 0;        // step checkpoints; 0 = validate_every
  std::int64_t keep_checkpoints = 5;  // step checkpoints kept; 0 = none written
  std::int64_t log_every = 100;       // plain log lines (and train.log) every N steps
  std::uint64_t seed = 1234;
  // Data-parallel runs (mpirun): gradients are summed in buckets of about this many MiB,
  // each started as soon as its gradients are final; 0 = one bucket per parameter.
  double allreduce_bucket_mb = 1.0;
  // Hard attention (model.attention.mode: hard) only: the REINFORCE term's weight lambda_r,
  // the entropy bonus lambda_e and the decay of the reward baseline's moving average
  // (docs/MODELS.md#hard-attention).
  double reinforce_weight = 1.0;
  double entropy_weight = 0.0;
  double baseline_decay = 0.9;
  // The probability that a batch trains with the soft expectation instead of samples (Xu et
  // al. 2015, sec. 4.1, use 0.5); such a batch has no REINFORCE term. 0 = always samples.
  double hard_soft_mix = 0.0;
  // lambda of the doubly stochastic attention penalty of image2seq (train/doubly_stochastic.h);
  // 0 = off.
  double doubly_stochastic = 0.0;
  // lambda of the coverage loss (train/coverage_loss.h; See et al. 2017): the attention each
  // step gives where earlier steps already attended; 0 = off.
  double coverage_loss = 0.0;
  // model.kind memn2n (docs/TRAINING.md#memory-networks): linear start (every hop's softmax
  // removed until the dev loss stops falling: linear_start_patience validations in a row
  // without a new lowest value) and random empty memories (the share of a
  // story's length inserted as gaps between the temporal indices, Sukhbaatar's "random noise").
  bool linear_start = false;
  std::int64_t linear_start_patience = 3;  // validations without a new lowest dev loss
  std::int64_t linear_start_epochs = 0;    // at most this many epochs; 0 = no limit
  double linear_start_lr = 0.0;            // > 0: lr meanwhile, the schedule restarts after it
  double random_empty_memories = 0.0;
  // model.kind las: SpecAugment's masks on each training utterance's features, drawn anew at
  // every step (audio/spec_augment.h); no masks (the default) = off. Never on the dev set.
  struct SpecAugment {
    std::int64_t freq_masks = 0;
    std::int64_t max_freq_width = 27;
    std::int64_t time_masks = 0;
    std::int64_t max_time_width = 40;
    double max_time_fraction = 0.2;
  } spec_augment;
  std::int64_t threads = 0;           // 0 = the OpenMP default
  DType dtype = DType::f32;
  kernels::MatmulPrecision precision = kernels::MatmulPrecision::f32;  // the step's products (f32 only)
};

struct TrainConfig {
  DataConfig data;
  ModelConfig model;
  TrainingConfig training;
  std::string output;  // the model directory (required)
};

// Parses YAML text; source names it in messages (a file path). overrides are "key=value"
// with a dotted key ("training.lr=5e-4"); the value is read as YAML.
TrainConfig parse_train_config(const std::string& yaml_text, const std::string& source,
                               const std::vector<std::string>& overrides = {});
// Reads and parses a file (heed::Error when missing or unreadable).
TrainConfig load_train_config(const std::string& path,
                              const std::vector<std::string>& overrides = {});

// The complete config as YAML, every key written (what the model directory records);
// parse_train_config(to_yaml(c)) == c.
std::string to_yaml(const TrainConfig& config);

}  // namespace heed
