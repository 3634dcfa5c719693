#include "heed/config/train_config.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "heed/base/error.h"
#include "heed/metrics/edit_distance.h"

namespace heed {

namespace {

// Dotted keys given by --set: messages about them say "--set" rather than a file line.
using Overridden = std::set<std::string>;

// Where a node came from: "file:line" for nodes read from the file, "--set" for overrides.
std::string where(const YAML::Node& node, const std::string& source, const Overridden& set,
                  const std::string& key) {
  const YAML::Mark m = node.Mark();
  if (m.is_null() || set.count(key)) return "--set";
  return source + ":" + std::to_string(m.line + 1);
}

std::string describe(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Null: return "nothing";
    default: return "'" + node.Scalar() + "'";
  }
}

// Reads one mapping section, remembering which keys were read so that the rest can be
// reported as unknown.
class Section {
 public:
  Section(YAML::Node node, std::string prefix, const std::string& source, const Overridden& set)
      : node_(std::move(node)), prefix_(std::move(prefix)), source_(source), set_(set) {
    if (node_.IsDefined() && !node_.IsNull())
      HEED_CHECK(node_.IsMap(), where(node_, source_, set_, prefix_.substr(0, prefix_.size() - 1)), ": ",
                 prefix_.empty() ? "the config" : prefix_.substr(0, prefix_.size() - 1),
                 ": expected a mapping of keys to values, got ", describe(node_));
    refuse_duplicates();
  }

  Section section(const char* key) {
    seen_.insert(key);
    return Section(child(key), prefix_ + key + ".", source_, set_);
  }

  void read(const char* key, std::string& out) {
    YAML::Node n = scalar(key);
    if (n) out = n.Scalar();
  }
  void read(const char* key, bool& out) {
    YAML::Node n = scalar(key);
    if (!n) return;
    const std::string s = n.Scalar();
    if (s == "true" || s == "True" || s == "yes") out = true;
    else if (s == "false" || s == "False" || s == "no") out = false;
    else fail(n, key, "expected true or false, got " + describe(n));
  }
  void read(const char* key, double& out) {
    YAML::Node n = scalar(key);
    if (!n) return;
    const std::string s = n.Scalar();
    std::size_t used = 0;
    double v = 0;
    try {
      v = std::stod(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || s.empty() || !std::isfinite(v))
      fail(n, key, "expected a number, got " + describe(n));
    out = v;
  }
  void read(const char* key, std::int64_t& out) {
    YAML::Node n = scalar(key);
    if (!n) return;
    const std::string s = n.Scalar();
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(s, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != s.size() || s.empty()) fail(n, key, "expected an integer, got " + describe(n));
    out = v;
  }
  void read(const char* key, std::uint64_t& out) {
    std::int64_t v = static_cast<std::int64_t>(out);
    read(key, v);
    check(key, v >= 0, "must be 0 or more");
    out = static_cast<std::uint64_t>(v);
  }
  // Reads one of an enum's names (base/enum_names.h).
  template <typename E>
  void read_enum(const char* key, E& out) {
    YAML::Node n = scalar(key);
    if (!n) return;
    if (!enum_from_name(n.Scalar(), out))
      fail(n, key, "expected one of " + enum_choices<E>() + ", got '" + n.Scalar() + "'");
  }
  // The same, where "" (or no key) means "the default" (nullopt).
  template <typename E>
  void read_enum(const char* key, std::optional<E>& out) {
    YAML::Node n = scalar(key);
    if (!n) return;
    if (n.Scalar().empty()) {
      out.reset();
      return;
    }
    E v{};
    if (!enum_from_name(n.Scalar(), v))
      fail(n, key, "expected one of " + enum_choices<E>() + " (or \"\" for the default), got '" +
                       n.Scalar() + "'");
    out = v;
  }

  // A range check on a value already read; cond false -> error at the key's line.
  void check(const char* key, bool cond, const std::string& what) {
    if (!cond) fail(value_node(key), key, what);
  }

  // Every key not read is an error.
  void finish() {
    if (!node_.IsDefined() || node_.IsNull()) return;
    for (const auto& kv : node_) {
      const std::string k = kv.first.Scalar();
      if (seen_.count(k)) continue;
      throw Error(where(kv.first, source_, set_, prefix_ + k) + ": unknown key '" + prefix_ + k + "'" +
                  suggestion(k));
    }
  }

  void mark_seen(const char* key) { seen_.insert(key); }

 private:
  // YAML forbids a key twice in one mapping; yaml-cpp keeps both and lookups see the first,
  // so the second would be silently ignored.
  void refuse_duplicates() const {
    if (!node_.IsDefined() || !node_.IsMap()) return;
    std::map<std::string, YAML::Mark> first;
    for (const auto& kv : node_) {
      const std::string k = kv.first.Scalar();
      const auto [it, fresh] = first.emplace(k, kv.first.Mark());
      if (fresh) continue;
      throw Error(where(kv.first, source_, set_, prefix_ + k) + ": key '" + prefix_ + k +
                  "' given twice (first at line " + std::to_string(it->second.line + 1) +
                  "); keep one");
    }
  }

  YAML::Node child(const char* key) const {
    if (!node_.IsDefined() || node_.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node& n = node_;  // const lookup: never inserts the key
    return n[key];
  }
  YAML::Node value_node(const char* key) const { return child(key); }

  // The key's scalar node, or an empty node when the key is absent (keep the default).
  YAML::Node scalar(const char* key) {
    seen_.insert(key);
    YAML::Node n = child(key);
    if (!n.IsDefined()) return n;
    if (!n.IsScalar()) fail(n, key, "expected a single value, got " + describe(n));
    return n;
  }

  [[noreturn]] void fail(const YAML::Node& n, const char* key, const std::string& what) const {
    const std::string at = n.IsDefined() ? where(n, source_, set_, prefix_ + key) : source_;
    throw Error(at + ": " + prefix_ + key + ": " + what);
  }

  // "(did you mean 'lr'?)" when a known key is one edit away or a prefix matches.
  std::string suggestion(const std::string& key) const {
    std::string best;
    std::size_t best_d = 3;
    for (const auto& k : seen_) {
      const std::size_t d = metrics::edit_distance_chars(key, k);
      if (d < best_d) best_d = d, best = k;
    }
    return best.empty() ? "" : " (did you mean '" + prefix_ + best + "'?)";
  }

  YAML::Node node_;
  std::string prefix_;
  const std::string& source_;
  const Overridden& set_;
  std::set<std::string> seen_;
};

void read_side(Section s, SideConfig& c) {
  s.read_enum("tokenizer", c.tokenizer);
  s.read("lowercase", c.lowercase);
  s.read("spm_model", c.spm_model);
  s.read("spm_vocab_size", c.spm_vocab_size);
  s.check("spm_vocab_size", c.spm_vocab_size >= 8, "must be at least 8");
  s.read_enum("spm_model_type", c.spm_model_type);
  s.read("spm_character_coverage", c.spm_character_coverage);
  s.check("spm_character_coverage", c.spm_character_coverage > 0 && c.spm_character_coverage <= 1,
          "must be in (0, 1]");
  s.read("vocab_max_size", c.vocab_max_size);
  s.check("vocab_max_size", c.vocab_max_size == 0 || c.vocab_max_size > 4,
          "must be 0 (no limit) or more than 4 (the special tokens)");
  s.read("vocab_min_freq", c.vocab_min_freq);
  s.check("vocab_min_freq", c.vocab_min_freq >= 1, "must be at least 1");
  s.read("max_length", c.max_length);
  s.check("max_length", c.max_length >= 0, "must be 0 (no limit) or more");
  s.finish();
}

// The image classifiers (models/image_classifier.h): they read images and one class name per
// image, and are scored by their error.
bool classifies_images(ModelKind kind) {
  return kind == ModelKind::ram || kind == ModelKind::fc || kind == ModelKind::cnn;
}

// data.generate: for the image classifiers only; kind translated or cluttered (a canvas set's
// targets are sequences, and its items do not move).
void read_generate(Section s, DataConfig::Generate& c, ModelKind model_kind) {
  s.read_enum("kind", c.kind);
  s.read("source", c.source);
  s.read("count", c.count);
  s.read("size", c.size);
  s.read("pieces", c.pieces);
  s.read("piece_size", c.piece_size);
  s.read("seed", c.seed);
  if (c.kind) {
    s.check("kind", classifies_images(model_kind),
            "data.generate draws training images for model.kind ram, fc and cnn, not " +
                std::string(enum_name(model_kind)));
    s.check("kind", *c.kind != ImageSetKind::canvas,
            "expected translated or cluttered: a canvas set's items do not move (use heed data "
            "images --kind canvas and data.train_images)");
    s.check("source", !c.source.empty(), "required: the Fashion-MNIST directory");
  }
  s.check("count", c.count >= 1, "must be at least 1");
  // Fashion-MNIST's items are 28x28 (read_fashion_mnist refuses others).
  s.check("size", c.size == 0 || (c.size >= kFashionMnistSide && c.size <= 4096),
          "must be 0 (60) or a side from 28 (an item's) up to 4096");
  s.check("pieces", c.pieces >= 0 && c.pieces <= 64, "must be between 0 and 64");
  s.check("piece_size", c.piece_size >= 1 && c.piece_size <= kFashionMnistSide,
          "must be between 1 and 28 (an item's side)");
  s.finish();
}

// images: the kind reads images (named by kind in the messages), not text.
void read_data(Section s, DataConfig& c, bool images, ModelKind kind) {
  const std::string reader = "model.kind " + std::string(enum_name(kind));
  s.read("train_source", c.train_source);
  s.read("train_target", c.train_target);
  s.read("train_images", c.train_images);
  s.read("dev_images", c.dev_images);
  read_generate(s.section("generate"), c.generate, kind);
  if (c.generate.kind) {  // the training set drawn by heed: no training files
    for (const auto& [key, value] : {std::pair{"train_images", &c.train_images},
                                     std::pair{"train_target", &c.train_target}})
      s.check(key, value->empty(),
              "data.generate draws the training set and its targets: give it or "
              "train_images and train_target, not both");
    s.check("train_source", c.train_source.empty(),
            reader + " reads images: data.generate draws them, train_source is not read");
  } else if (images) {  // an image model reads images, one class name per image in the targets
    s.check("train_images", !c.train_images.empty(),
            "required for " + reader + ": the training images (an IDX file of heed data images)");
    s.check("train_source", c.train_source.empty(),
            reader + " reads images: give data.train_images, not train_source");
  } else {
    s.check("train_source", !c.train_source.empty(), "required: the training source file");
    s.check("train_images", c.train_images.empty() && c.dev_images.empty(),
            "only model.kind ram reads images (and fc and cnn, the other image classifiers); "
            "text models read train_source");
  }
  if (!c.generate.kind)
    s.check("train_target", !c.train_target.empty(), "required: the training target file");
  s.read("dev_source", c.dev_source);
  s.read("dev_target", c.dev_target);
  if (images) {
    s.check("dev_source", c.dev_source.empty(),
            reader + " reads images: give data.dev_images, not dev_source");
    s.check("dev_target", c.dev_images.empty() == c.dev_target.empty(),
            "dev_images and dev_target go together: give both or neither");
  } else {
    s.check("dev_target", c.dev_source.empty() == c.dev_target.empty(),
            "dev_source and dev_target go together: give both or neither");
  }
  s.read("max_dev_sentences", c.max_dev_sentences);
  s.check("max_dev_sentences", c.max_dev_sentences >= 0, "must be 0 (all) or more");
  read_side(s.section("source"), c.source);
  read_side(s.section("target"), c.target);
  s.finish();
}

void read_model(Section s, ModelConfig& c) {
  s.read_enum("kind", c.kind);
  s.read("src_vocab", c.src_vocab);
  s.read("tgt_vocab", c.tgt_vocab);
  s.check("src_vocab", c.src_vocab >= 0, "must be 0 (from the vocabulary) or more");
  s.check("tgt_vocab", c.tgt_vocab >= 0, "must be 0 (from the vocabulary) or more");
  auto positive = [&](const char* key, std::int64_t& v) {
    s.read(key, v);
    s.check(key, v >= 1, "must be at least 1");
  };
  auto non_negative = [&](const char* key, std::int64_t& v) {
    s.read(key, v);
    s.check(key, v >= 0, "must be 0 or more");
  };
  positive("emb_dim", c.emb_dim);
  s.read_enum("encoder_cell", c.encoder_cell);
  positive("enc_hidden", c.enc_hidden);
  positive("enc_layers", c.enc_layers);
  s.read("bidirectional", c.bidirectional);
  positive("dec_hidden", c.dec_hidden);
  positive("dec_layers", c.dec_layers);
  non_negative("attn_dim", c.attn_dim);
  non_negative("out_dim", c.out_dim);
  s.read_enum("score", c.score);
  s.read("input_feed", c.input_feed);
  s.read("local_p", c.local_p);
  positive("window", c.window);
  positive("max_src_len", c.max_src_len);
  s.read("dropout", c.dropout);
  s.check("dropout", c.dropout >= 0 && c.dropout < 1, "must be in [0, 1)");
  s.read("tie_embeddings", c.tie_embeddings);
  // The recurrent attention model (kind ram); other kinds ignore these.
  positive("glimpses", c.ram.glimpses);
  positive("glimpse_size", c.ram.glimpse_size);
  positive("scales", c.ram.scales);
  s.check("scales", c.ram.scales <= 8, "must be at most 8 (the largest patch is glimpse_size x 2^(scales - 1))");
  positive("glimpse_hidden", c.ram.glimpse_hidden);
  positive("location_hidden", c.ram.location_hidden);
  positive("glimpse_dim", c.ram.glimpse_dim);
  s.read_enum("core", c.ram.core);
  positive("core_hidden", c.ram.core_hidden);
  s.read("location_std", c.ram.location_std);
  s.check("location_std", c.ram.location_std > 0 && c.ram.location_std <= 1,
          "must be in (0, 1] (locations span [-1, 1])");
  positive("sample_paths", c.ram.sample_paths);
  s.read("random_locations", c.ram.random_locations);
  // The fully connected classifier (kind fc) and the image size fc and cnn read every pixel
  // of; other kinds ignore these.
  non_negative("image_height", c.classifier.image_height);
  non_negative("image_width", c.classifier.image_width);
  non_negative("fc_layers", c.classifier.fc_layers);
  s.check("fc_layers", c.classifier.fc_layers <= 16, "must be at most 16");
  positive("fc_hidden", c.classifier.fc_hidden);
  // The convolution stack of cnn and of image2seq's encoder; other kinds ignore these.
  positive("conv_layers", c.image.conv_layers);
  s.check("conv_layers", c.image.conv_layers <= 8, "must be at most 8 (each layer halves the side)");
  positive("conv_channels", c.image.conv_channels);
  {
    Section a = s.section("attention");
    a.read_enum("mode", c.attention_mode);
    a.read_enum("hard_eval", c.hard_eval);
    a.finish();
  }
  s.finish();
}

void read_training(Section s, TrainingConfig& c, const ModelConfig& model) {
  const ModelKind kind = model.kind;
  s.read_enum("optimizer", c.optimizer);
  s.read("lr", c.lr);
  s.check("lr", c.lr > 0, "must be positive");
  s.read("beta1", c.beta1);
  s.check("beta1", c.beta1 >= 0 && c.beta1 < 1, "must be in [0, 1)");
  s.read("beta2", c.beta2);
  s.check("beta2", c.beta2 >= 0 && c.beta2 < 1, "must be in [0, 1)");
  s.read("eps", c.eps);
  s.check("eps", c.eps > 0, "must be positive");
  s.read("weight_decay", c.weight_decay);
  s.check("weight_decay", c.weight_decay >= 0, "must be 0 or more");
  s.read("momentum", c.momentum);
  s.check("momentum", c.momentum >= 0 && c.momentum < 1, "must be in [0, 1)");
  s.read("nesterov", c.nesterov);
  s.check("nesterov", !c.nesterov || c.momentum > 0, "nesterov needs momentum > 0");
  s.read_enum("schedule", c.schedule);
  s.read("decay_factor", c.decay_factor);
  s.check("decay_factor", c.decay_factor > 0 && c.decay_factor < 1, "must be in (0, 1)");
  s.read("plateau_patience", c.plateau_patience);
  s.check("plateau_patience", c.plateau_patience >= 0, "must be 0 or more");
  s.read("min_lr", c.min_lr);
  s.check("min_lr", c.min_lr >= 0, "must be 0 or more");
  s.read("warmup_steps", c.warmup_steps);
  s.check("warmup_steps", c.warmup_steps >= 0, "must be 0 or more");
  s.read_enum("decay", c.decay);
  s.read("clip_norm", c.clip_norm);
  s.check("clip_norm", c.clip_norm >= 0, "must be 0 (off) or positive");
  s.read("label_smoothing", c.label_smoothing);
  s.check("label_smoothing", c.label_smoothing >= 0 && c.label_smoothing < 1, "must be in [0, 1)");
  s.read("max_tokens", c.max_tokens);
  s.check("max_tokens", c.max_tokens >= 1, "must be at least 1");
  s.read("max_sentences", c.max_sentences);
  s.check("max_sentences", c.max_sentences >= 0, "must be 0 (no limit) or more");
  s.read("max_steps", c.max_steps);
  s.read("max_seconds", c.max_seconds);
  s.check("max_seconds", c.max_seconds >= 0, "must be 0 (no limit) or more");
  s.check("max_steps", c.max_steps >= 0, "must be 0 (no limit) or more");
  s.read("max_epochs", c.max_epochs);
  s.check("max_epochs", c.max_epochs >= 0, "must be 0 (no limit) or more");
  s.check("max_epochs", c.max_steps > 0 || c.max_epochs > 0 || c.max_seconds > 0,
          "max_steps, max_epochs and max_seconds are all 0: set at least one so that training "
          "ends");
  s.check("decay",
          c.schedule != ScheduleKind::warmup || c.decay != DecayKind::linear ||
              c.max_steps > c.warmup_steps ||
              c.max_seconds > 0,
          "linear decay needs training.max_steps (" + std::to_string(c.max_steps) +
              ") greater than training.warmup_steps (" + std::to_string(c.warmup_steps) +
              ") or training.max_seconds");
  s.read("validate_every", c.validate_every);
  s.check("validate_every", c.validate_every >= 1, "must be at least 1");
  s.read_enum("metric", c.metric);
  if (kind == ModelKind::image2seq)
    s.check("metric", c.metric == DevMetric::loss || c.metric == DevMetric::error,
            "model.kind image2seq: use loss or error (the dev images whose decoded class names "
            "differ from the target, in %), got " + std::string(enum_name(c.metric)));
  else if (classifies_images(kind))
    s.check("metric", c.metric == DevMetric::loss || c.metric == DevMetric::error,
            "model.kind " + std::string(enum_name(kind)) + " classifies images: use loss or "
                "error, got " + std::string(enum_name(c.metric)));
  else
    s.check("metric", c.metric != DevMetric::error,
            "error is the classification error of model.kind ram, fc and cnn; text models use "
            "loss, bleu, wer or g2p");
  s.read("max_output_factor", c.max_output_factor);
  s.check("max_output_factor", c.max_output_factor >= 1, "must be at least 1");
  s.read("early_stopping", c.early_stopping);
  s.check("early_stopping", c.early_stopping >= 0, "must be 0 (off) or more");
  s.read("save_every", c.save_every);
  s.check("save_every", c.save_every >= 0, "must be 0 (= validate_every) or more");
  s.read("keep_checkpoints", c.keep_checkpoints);
  s.check("keep_checkpoints", c.keep_checkpoints >= 0, "must be 0 or more");
  s.read("log_every", c.log_every);
  s.check("log_every", c.log_every >= 1, "must be at least 1");
  s.read("seed", c.seed);
  s.read("threads", c.threads);
  s.check("threads", c.threads >= 0, "must be 0 (the default) or more");
  s.read("allreduce_bucket_mb", c.allreduce_bucket_mb);
  s.check("allreduce_bucket_mb", c.allreduce_bucket_mb >= 0 && c.allreduce_bucket_mb <= 1024,
          "must be in [0, 1024] (MiB; 0 = one bucket per parameter)");
  s.read("reinforce_weight", c.reinforce_weight);
  s.check("reinforce_weight", c.reinforce_weight >= 0, "must be 0 or more");
  s.read("entropy_weight", c.entropy_weight);
  s.check("entropy_weight", c.entropy_weight >= 0, "must be 0 or more");
  s.read("doubly_stochastic", c.doubly_stochastic);
  s.check("doubly_stochastic", c.doubly_stochastic >= 0, "must be 0 (off) or more");
  // Refused here, before heed train makes the output directory (the trainer checks it again
  // for configs built in code).
  s.check("doubly_stochastic",
          c.doubly_stochastic == 0 ||
              (kind == ModelKind::image2seq && model.attention_mode == AttentionMode::soft),
          "the penalty is on the soft attention weights of model.kind image2seq "
          "(model.attention.mode soft), not " + std::string(enum_name(kind)) + " with mode " +
              std::string(enum_name(model.attention_mode)) + "; set it to 0");
  s.read("baseline_decay", c.baseline_decay);
  s.check("baseline_decay", c.baseline_decay >= 0 && c.baseline_decay < 1, "must be in [0, 1)");
  s.read("hard_soft_mix", c.hard_soft_mix);
  s.check("hard_soft_mix", c.hard_soft_mix >= 0 && c.hard_soft_mix <= 1,
          "must be in [0, 1] (the probability that a batch reads the soft expectation)");
  const bool hard = !classifies_images(kind) && model.attention_mode == AttentionMode::hard;
  s.check("hard_soft_mix", c.hard_soft_mix == 0 || hard,
          "mixes the soft expectation into hard attention's training (model.attention.mode "
          "hard), not model.kind " + std::string(enum_name(kind)) +
              (classifies_images(kind) ? "" : " with mode " +
                                                  std::string(enum_name(model.attention_mode))) +
              "; set it to 0");
  s.read_enum("dtype", c.dtype);
  s.read_enum("precision", c.precision);
  s.check("precision", c.precision == kernels::MatmulPrecision::f32 || c.dtype == DType::f32,
          "bf16 products need dtype f32 (got " + std::string(enum_name(c.dtype)) + ")");
  s.finish();
}

// Applies "a.b.c=value" to the tree, creating maps on the way.
void apply_override(YAML::Node& root, const std::string& text, Overridden& set) {
  const auto eq = text.find('=');
  HEED_CHECK(eq != std::string::npos && eq > 0, "--set ", text,
             ": expected key=value, e.g. training.lr=0.0005");
  const std::string key = text.substr(0, eq);
  set.insert(key);
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(eq + 1));
  } catch (const YAML::Exception& e) {
    throw Error("--set " + text + ": the value is not valid YAML (" + e.msg + ")");
  }
  if (value.IsNull() && text.size() == eq + 1) value = YAML::Node(std::string());
  std::vector<std::string> parts;
  std::stringstream ss(key);
  for (std::string p; std::getline(ss, p, '.');) {
    HEED_CHECK(!p.empty(), "--set ", text, ": empty part in the key '", key, "'");
    parts.push_back(p);
  }
  // Walk with explicit node copies: yaml-cpp nodes are handles, assignment rebinds.
  std::vector<YAML::Node> path{root};
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    YAML::Node cur = path.back();
    YAML::Node next = cur[parts[i]];
    if (!next.IsDefined() || next.IsNull()) {
      cur[parts[i]] = YAML::Node(YAML::NodeType::Map);
      next = cur[parts[i]];
    }
    HEED_CHECK(next.IsMap(), "--set ", text, ": '",
               key.substr(0, key.find(parts[i]) + parts[i].size()), "' is not a section");
    path.push_back(next);
  }
  YAML::Node last = path.back();
  last[parts.back()] = value;
}

TrainConfig parse_node(YAML::Node root, const std::string& source, const Overridden& set) {
  TrainConfig c;
  Section top(root, "", source, set);
  {
    // The kind first: it decides which data keys are required (text files or images).
    Section model = top.section("model");
    model.read_enum("kind", c.model.kind);
  }
  read_data(top.section("data"), c.data,
            classifies_images(c.model.kind) || c.model.kind == ModelKind::image2seq, c.model.kind);
  read_model(top.section("model"), c.model);
  read_training(top.section("training"), c.training, c.model);
  top.read("output", c.output);
  top.check("output", !c.output.empty(), "required: the model directory to write");
  top.finish();
  return c;
}

}  // namespace

TrainConfig parse_train_config(const std::string& yaml_text, const std::string& source,
                               const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::ParserException& e) {
    throw Error(source + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + e.msg);
  }
  if (!root.IsDefined() || root.IsNull()) root = YAML::Node(YAML::NodeType::Map);
  HEED_CHECK(root.IsMap(), source, ": expected a mapping with the sections data, model, training",
             " and the key output; got ", describe(root));
  Overridden set;
  for (const auto& o : overrides) apply_override(root, o, set);
  return parse_node(root, source, set);
}

TrainConfig load_train_config(const std::string& path, const std::vector<std::string>& overrides) {
  HEED_CHECK(!std::filesystem::is_directory(path), path,
             ": is a directory; give the YAML config file (e.g. ", path, "/config.yaml)");
  std::ifstream in(path, std::ios::binary);
  HEED_CHECK(in.good(), path, ": cannot open the config for reading");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse_train_config(ss.str(), path, overrides);
}

namespace {
template <typename E>
std::string text_of(E value) {
  return std::string(enum_name(value));
}

void emit_side(YAML::Emitter& e, const char* name, const SideConfig& c) {
  e << YAML::Key << name << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "tokenizer" << YAML::Value << text_of(c.tokenizer);
  e << YAML::Key << "lowercase" << YAML::Value << c.lowercase;
  e << YAML::Key << "spm_model" << YAML::Value << c.spm_model;
  e << YAML::Key << "spm_vocab_size" << YAML::Value << c.spm_vocab_size;
  e << YAML::Key << "spm_model_type" << YAML::Value << text_of(c.spm_model_type);
  e << YAML::Key << "spm_character_coverage" << YAML::Value << c.spm_character_coverage;
  e << YAML::Key << "vocab_max_size" << YAML::Value << c.vocab_max_size;
  e << YAML::Key << "vocab_min_freq" << YAML::Value << c.vocab_min_freq;
  e << YAML::Key << "max_length" << YAML::Value << c.max_length;
  e << YAML::EndMap;
}
}  // namespace

std::string to_yaml(const TrainConfig& c) {
  YAML::Emitter e;
  e.SetDoublePrecision(17);
  e << YAML::BeginMap;
  e << YAML::Key << "data" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "train_source" << YAML::Value << c.data.train_source;
  e << YAML::Key << "train_target" << YAML::Value << c.data.train_target;
  e << YAML::Key << "dev_source" << YAML::Value << c.data.dev_source;
  e << YAML::Key << "dev_target" << YAML::Value << c.data.dev_target;
  e << YAML::Key << "train_images" << YAML::Value << c.data.train_images;
  e << YAML::Key << "dev_images" << YAML::Value << c.data.dev_images;
  {
    const DataConfig::Generate& g = c.data.generate;
    e << YAML::Key << "generate" << YAML::Value << YAML::BeginMap;
    e << YAML::Key << "kind" << YAML::Value << (g.kind ? std::string(enum_name(*g.kind)) : "");
    e << YAML::Key << "source" << YAML::Value << g.source;
    e << YAML::Key << "count" << YAML::Value << g.count;
    e << YAML::Key << "size" << YAML::Value << g.size;
    e << YAML::Key << "pieces" << YAML::Value << g.pieces;
    e << YAML::Key << "piece_size" << YAML::Value << g.piece_size;
    e << YAML::Key << "seed" << YAML::Value << g.seed;
    e << YAML::EndMap;
  }
  e << YAML::Key << "max_dev_sentences" << YAML::Value << c.data.max_dev_sentences;
  emit_side(e, "source", c.data.source);
  emit_side(e, "target", c.data.target);
  e << YAML::EndMap;

  const ModelConfig& m = c.model;
  e << YAML::Key << "model" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "kind" << YAML::Value << text_of(m.kind);
  e << YAML::Key << "src_vocab" << YAML::Value << m.src_vocab;
  e << YAML::Key << "tgt_vocab" << YAML::Value << m.tgt_vocab;
  e << YAML::Key << "emb_dim" << YAML::Value << m.emb_dim;
  e << YAML::Key << "encoder_cell" << YAML::Value
    << (m.encoder_cell ? text_of(*m.encoder_cell) : std::string());
  e << YAML::Key << "enc_hidden" << YAML::Value << m.enc_hidden;
  e << YAML::Key << "enc_layers" << YAML::Value << m.enc_layers;
  e << YAML::Key << "bidirectional" << YAML::Value << m.bidirectional;
  e << YAML::Key << "dec_hidden" << YAML::Value << m.dec_hidden;
  e << YAML::Key << "dec_layers" << YAML::Value << m.dec_layers;
  e << YAML::Key << "attn_dim" << YAML::Value << m.attn_dim;
  e << YAML::Key << "out_dim" << YAML::Value << m.out_dim;
  e << YAML::Key << "score" << YAML::Value << text_of(m.score);
  e << YAML::Key << "input_feed" << YAML::Value << m.input_feed;
  e << YAML::Key << "local_p" << YAML::Value << m.local_p;
  e << YAML::Key << "window" << YAML::Value << m.window;
  e << YAML::Key << "max_src_len" << YAML::Value << m.max_src_len;
  e << YAML::Key << "dropout" << YAML::Value << m.dropout;
  e << YAML::Key << "tie_embeddings" << YAML::Value << m.tie_embeddings;
  e << YAML::Key << "glimpses" << YAML::Value << m.ram.glimpses;
  e << YAML::Key << "glimpse_size" << YAML::Value << m.ram.glimpse_size;
  e << YAML::Key << "scales" << YAML::Value << m.ram.scales;
  e << YAML::Key << "glimpse_hidden" << YAML::Value << m.ram.glimpse_hidden;
  e << YAML::Key << "location_hidden" << YAML::Value << m.ram.location_hidden;
  e << YAML::Key << "glimpse_dim" << YAML::Value << m.ram.glimpse_dim;
  e << YAML::Key << "core" << YAML::Value << text_of(m.ram.core);
  e << YAML::Key << "core_hidden" << YAML::Value << m.ram.core_hidden;
  e << YAML::Key << "location_std" << YAML::Value << m.ram.location_std;
  e << YAML::Key << "sample_paths" << YAML::Value << m.ram.sample_paths;
  e << YAML::Key << "random_locations" << YAML::Value << m.ram.random_locations;
  e << YAML::Key << "image_height" << YAML::Value << m.classifier.image_height;
  e << YAML::Key << "image_width" << YAML::Value << m.classifier.image_width;
  e << YAML::Key << "fc_layers" << YAML::Value << m.classifier.fc_layers;
  e << YAML::Key << "fc_hidden" << YAML::Value << m.classifier.fc_hidden;
  e << YAML::Key << "conv_layers" << YAML::Value << m.image.conv_layers;
  e << YAML::Key << "conv_channels" << YAML::Value << m.image.conv_channels;
  e << YAML::Key << "attention" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "mode" << YAML::Value << text_of(m.attention_mode);
  e << YAML::Key << "hard_eval" << YAML::Value << text_of(m.hard_eval);
  e << YAML::EndMap;
  e << YAML::EndMap;

  const TrainingConfig& t = c.training;
  e << YAML::Key << "training" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "optimizer" << YAML::Value << text_of(t.optimizer);
  e << YAML::Key << "lr" << YAML::Value << t.lr;
  e << YAML::Key << "beta1" << YAML::Value << t.beta1;
  e << YAML::Key << "beta2" << YAML::Value << t.beta2;
  e << YAML::Key << "eps" << YAML::Value << t.eps;
  e << YAML::Key << "weight_decay" << YAML::Value << t.weight_decay;
  e << YAML::Key << "momentum" << YAML::Value << t.momentum;
  e << YAML::Key << "nesterov" << YAML::Value << t.nesterov;
  e << YAML::Key << "schedule" << YAML::Value << text_of(t.schedule);
  e << YAML::Key << "decay_factor" << YAML::Value << t.decay_factor;
  e << YAML::Key << "plateau_patience" << YAML::Value << t.plateau_patience;
  e << YAML::Key << "min_lr" << YAML::Value << t.min_lr;
  e << YAML::Key << "warmup_steps" << YAML::Value << t.warmup_steps;
  e << YAML::Key << "decay" << YAML::Value << text_of(t.decay);
  e << YAML::Key << "clip_norm" << YAML::Value << t.clip_norm;
  e << YAML::Key << "label_smoothing" << YAML::Value << t.label_smoothing;
  e << YAML::Key << "max_tokens" << YAML::Value << t.max_tokens;
  e << YAML::Key << "max_sentences" << YAML::Value << t.max_sentences;
  e << YAML::Key << "max_steps" << YAML::Value << t.max_steps;
  e << YAML::Key << "max_seconds" << YAML::Value << t.max_seconds;
  e << YAML::Key << "max_epochs" << YAML::Value << t.max_epochs;
  e << YAML::Key << "validate_every" << YAML::Value << t.validate_every;
  e << YAML::Key << "metric" << YAML::Value << text_of(t.metric);
  e << YAML::Key << "max_output_factor" << YAML::Value << t.max_output_factor;
  e << YAML::Key << "early_stopping" << YAML::Value << t.early_stopping;
  e << YAML::Key << "save_every" << YAML::Value << t.save_every;
  e << YAML::Key << "keep_checkpoints" << YAML::Value << t.keep_checkpoints;
  e << YAML::Key << "log_every" << YAML::Value << t.log_every;
  e << YAML::Key << "seed" << YAML::Value << t.seed;
  e << YAML::Key << "threads" << YAML::Value << t.threads;
  e << YAML::Key << "allreduce_bucket_mb" << YAML::Value << t.allreduce_bucket_mb;
  e << YAML::Key << "reinforce_weight" << YAML::Value << t.reinforce_weight;
  e << YAML::Key << "entropy_weight" << YAML::Value << t.entropy_weight;
  e << YAML::Key << "doubly_stochastic" << YAML::Value << t.doubly_stochastic;
  e << YAML::Key << "baseline_decay" << YAML::Value << t.baseline_decay;
  e << YAML::Key << "hard_soft_mix" << YAML::Value << t.hard_soft_mix;
  e << YAML::Key << "dtype" << YAML::Value << text_of(t.dtype);
  e << YAML::Key << "precision" << YAML::Value << text_of(t.precision);
  e << YAML::EndMap;

  e << YAML::Key << "output" << YAML::Value << c.output;
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace heed
