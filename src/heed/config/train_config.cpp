#include "heed/config/train_config.h"

#include <yaml-cpp/yaml.h>
#include <yaml-cpp/depthguard.h>

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
#include "heed/config/config_keys.h"
#include "heed/data/babi.h"
#include "heed/metrics/edit_distance.h"
#include "heed/models/model_config.h"

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
  // Reads one of a choice key's names (base/enum_names.h).
  void read_choice(const char* key, const ConfigKey& spec, TrainConfig& c) {
    YAML::Node n = scalar(key);
    if (!n) return;
    if (spec.set(c, n.Scalar())) return;
    fail(n, key, "expected one of " + spec.choices +
                     (spec.unset_allowed ? " (or \"\" for the default)" : "") + ", got '" +
                     n.Scalar() + "'");
  }

  // Whether the key is given.
  bool has(const char* key) const { return child(key).IsDefined(); }

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

// The config's sections, opened as their first key is read ("" is the top level).
class Sections {
 public:
  Sections(YAML::Node root, const std::string& source, const Overridden& set)
      : root_(std::move(root)), source_(source), set_(set) {}

  Section& get(const std::string& path) {
    const auto it = open_.find(path);
    if (it != open_.end()) return it->second;
    if (path.empty()) return add(path, Section(root_, "", source_, set_));
    const auto dot = path.rfind('.');
    const std::string parent = dot == std::string::npos ? "" : path.substr(0, dot);
    const std::string leaf = dot == std::string::npos ? path : path.substr(dot + 1);
    return add(path, get(parent).section(leaf.c_str()));
  }

  // cond false -> heed::Error at the dotted key's line.
  void check(const std::string& dotted, bool cond, const std::string& what) {
    if (cond) return;
    const auto dot = dotted.rfind('.');
    get(dot == std::string::npos ? "" : dotted.substr(0, dot))
        .check((dot == std::string::npos ? dotted : dotted.substr(dot + 1)).c_str(), false, what);
  }

  // Unknown keys, the top level's last.
  void finish() {
    for (const auto& path : order_)
      if (!path.empty()) open_.at(path).finish();
    get("").finish();
  }

 private:
  Section& add(const std::string& path, Section s) {
    order_.push_back(path);
    return open_.emplace(path, std::move(s)).first->second;
  }

  YAML::Node root_;
  const std::string& source_;
  const Overridden& set_;
  std::map<std::string, Section> open_;
  std::vector<std::string> order_;
};

double as_number(const KeyValue& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* u = std::get_if<std::uint64_t>(&v)) return static_cast<double>(*u);
  return std::get<double>(v);
}

// Reads one key of the table into c: its type, then its ranges.
void read_key(Section& s, const ConfigKey& key, TrainConfig& c) {
  const std::string leaf = key.leaf();
  const char* k = leaf.c_str();
  KeyValue v = key.get(c);
  switch (key.type) {
    case KeyType::string: s.read(k, std::get<std::string>(v)); break;
    case KeyType::integer: s.read(k, std::get<std::int64_t>(v)); break;
    case KeyType::unsigned_integer: s.read(k, std::get<std::uint64_t>(v)); break;
    case KeyType::number: s.read(k, std::get<double>(v)); break;
    case KeyType::boolean: s.read(k, std::get<bool>(v)); break;
    case KeyType::choice: s.read_choice(k, key, c); return;  // choices have no ranges
  }
  key.set(c, v);
  for (const KeyRange& r : key.ranges) s.check(k, r.contains(as_number(v)), r.message);
}

// The checks that involve more than one key, each at the key it names.

// data.generate: for the image classifiers only; kind translated or cluttered (a canvas set's
// targets are sequences, and its items do not move).
void check_generate(Sections& s, const TrainConfig& c) {
  const DataConfig::Generate& g = c.data.generate;
  const ModelKind kind = c.model.kind;
  if (!g.kind) return;
  s.check("data.generate.kind", classifies_images(kind),
          "data.generate draws training images for model.kind ram, fc and cnn, not " +
              std::string(enum_name(kind)));
  s.check("data.generate.kind", *g.kind != ImageSetKind::canvas,
          "expected translated or cluttered: a canvas set's items do not move (use heed data "
          "images --kind canvas and data.train_images)");
  s.check("data.generate.source", !g.source.empty(), "required: the Fashion-MNIST directory");
}

// Which files a kind reads: text, images (named by kind in the messages), or none (generated).
void check_data(Sections& s, const TrainConfig& config) {
  const DataConfig& c = config.data;
  const ModelKind kind = config.model.kind;
  const bool images = takes_images(kind);
  const std::string reader = "model.kind " + std::string(enum_name(kind));
  const SideConfig& src = c.source;
  const SideConfig& tgt = c.target;
  s.check("data.spm_joint",
          !c.spm_joint || (src.tokenizer == TokenizerKind::sentencepiece &&
                           tgt.tokenizer == TokenizerKind::sentencepiece),
          "one SentencePiece model for both sides needs data.source.tokenizer and "
          "data.target.tokenizer sentencepiece");
  s.check("data.spm_joint", !c.spm_joint || src.lowercase == tgt.lowercase,
          "the shared SentencePiece model lowercases both sides or neither: set "
          "data.source.lowercase and data.target.lowercase alike");
  s.check("data.spm_joint", !c.spm_joint || tgt.spm_model.empty(),
          "the shared model is data.source.spm_model (or one trained here); remove "
          "data.target.spm_model");
  // One embedding table for both sides reads one vocabulary, built from both sides' tokens:
  // a token must be cut alike on either side.
  if (kind == ModelKind::transformer && config.model.transformer.share_embeddings) {
    s.check("model.share_embeddings", src.tokenizer == tgt.tokenizer,
            "one embedding table for both sides needs one vocabulary, so both sides tokenised "
            "alike: set data.source.tokenizer and data.target.tokenizer the same (got " +
                std::string(enum_name(src.tokenizer)) + " and " +
                std::string(enum_name(tgt.tokenizer)) + ")");
    s.check("model.share_embeddings",
            src.tokenizer != TokenizerKind::sentencepiece || c.spm_joint,
            "one embedding table for both sides needs one vocabulary, so one SentencePiece "
            "model for both sides: set data.spm_joint: true");
  }
  if (answers_questions(kind)) {  // stories and questions from bAbI's task files
    s.check("data.babi.dir", !c.babi.dir.empty(),
            "required for " + reader + ": the directory of bAbI's qa<N>_*_train.txt files");
    // The task list is checked here, at its key (exit 2 before the output directory is made),
    // with parse_babi_tasks's message.
    std::string tasks_error;
    try {
      parse_babi_tasks(c.babi.tasks);
    } catch (const Error& e) {
      tasks_error = e.what();
    }
    s.check("data.babi.tasks", tasks_error.empty(), tasks_error);
    for (const auto& [key, value] : {std::pair{"data.train_source", &c.train_source},
                                     std::pair{"data.dev_source", &c.dev_source},
                                     std::pair{"data.train_images", &c.train_images},
                                     std::pair{"data.dev_images", &c.dev_images}})
      s.check(key, value->empty(),
              reader + " reads stories and questions from data.babi.dir (its dev set is "
                       "data.babi.dev_fraction of the training questions); remove it");
    return;
  }
  if (transcribes_speech(kind)) {  // WAV files and transcripts listed in .tsv manifests
    s.check("data.train_manifest", !c.train_manifest.empty(),
            "required for " + reader + ": the training manifest (a .tsv of WAV paths and "
            "transcripts, as heed data digits writes)");
    for (const auto& [key, value] : {std::pair{"data.train_source", &c.train_source},
                                     std::pair{"data.dev_source", &c.dev_source},
                                     std::pair{"data.train_target", &c.train_target},
                                     std::pair{"data.dev_target", &c.dev_target},
                                     std::pair{"data.train_images", &c.train_images},
                                     std::pair{"data.dev_images", &c.dev_images}})
      s.check(key, value->empty(),
              reader + " reads WAV files and their transcripts from data.train_manifest and "
                       "data.dev_manifest; remove it");
    s.check("data.target.tokenizer", c.target.tokenizer != TokenizerKind::sentencepiece,
            reader + " spells characters (char) or words (whitespace), not sentencepiece");
    s.check("data.audio.stack", config.model.listener.frontend_layers == 0 || c.audio.stack == 1,
            "must be 1 with model.frontend_layers: the front end reads each frame's mel bins as "
            "a column of an image, and its pooling shortens time instead");
    return;
  }
  if (c.generate.kind) {  // the training set drawn by heed: no training files
    for (const auto& [key, value] : {std::pair{"data.train_images", &c.train_images},
                                     std::pair{"data.train_target", &c.train_target}})
      s.check(key, value->empty(),
              "data.generate draws the training set and its targets: give it or "
              "train_images and train_target, not both");
    s.check("data.train_source", c.train_source.empty(),
            reader + " reads images: data.generate draws them, train_source is not read");
  } else if (images) {  // an image model reads images, one class name per image in the targets
    s.check("data.train_images", !c.train_images.empty(),
            "required for " + reader + ": the training images (an IDX file of heed data images)");
    s.check("data.train_source", c.train_source.empty(),
            reader + " reads images: give data.train_images, not train_source");
  } else {
    s.check("data.train_source", !c.train_source.empty(), "required: the training source file");
    s.check("data.train_images", c.train_images.empty() && c.dev_images.empty(),
            "only model.kind ram reads images (and fc and cnn, the other image classifiers); "
            "text models read train_source");
  }
  if (!c.generate.kind)
    s.check("data.train_target", !c.train_target.empty(), "required: the training target file");
  if (images) {
    s.check("data.dev_source", c.dev_source.empty(),
            reader + " reads images: give data.dev_images, not dev_source");
    s.check("data.dev_target", c.dev_images.empty() == c.dev_target.empty(),
            "dev_images and dev_target go together: give both or neither");
  } else {
    s.check("data.dev_target", c.dev_source.empty() == c.dev_target.empty(),
            "dev_source and dev_target go together: give both or neither");
  }
}

void check_training(Sections& s, const TrainConfig& config) {
  const TrainingConfig& c = config.training;
  const ModelConfig& model = config.model;
  const ModelKind kind = model.kind;
  s.check("training.nesterov", !c.nesterov || c.momentum > 0, "nesterov needs momentum > 0");
  s.check("training.max_epochs", c.max_steps > 0 || c.max_epochs > 0 || c.max_seconds > 0,
          "max_steps, max_epochs and max_seconds are all 0: set at least one so that training "
          "ends");
  s.check("training.decay",
          c.schedule != ScheduleKind::warmup || c.decay != DecayKind::linear ||
              c.max_steps > c.warmup_steps || c.max_seconds > 0,
          "linear decay needs training.max_steps (" + std::to_string(c.max_steps) +
              ") greater than training.warmup_steps (" + std::to_string(c.warmup_steps) +
              ") or training.max_seconds");
  if (transcribes_speech(kind))
    s.check("training.metric", c.metric == DevMetric::loss || c.metric == DevMetric::error ||
                                   c.metric == DevMetric::wer,
            "model.kind " + std::string(enum_name(kind)) + " transcribes speech: use loss, wer "
                "or error (the dev utterances whose transcript differs from the reference, in "
                "%), got " + std::string(enum_name(c.metric)));
  else if (kind == ModelKind::image2seq)
    s.check("training.metric", c.metric == DevMetric::loss || c.metric == DevMetric::error,
            "model.kind image2seq: use loss or error (the dev images whose decoded class names "
            "differ from the target, in %), got " + std::string(enum_name(c.metric)));
  else if (answers_questions(kind))
    s.check("training.metric", c.metric == DevMetric::loss || c.metric == DevMetric::error,
            "model.kind " + std::string(enum_name(kind)) + " answers questions: use loss or "
                "error (the share of dev questions answered wrongly, in %), got " +
                std::string(enum_name(c.metric)));
  else if (classifies_images(kind))
    s.check("training.metric", c.metric == DevMetric::loss || c.metric == DevMetric::error,
            "model.kind " + std::string(enum_name(kind)) + " classifies images: use loss or "
                "error, got " + std::string(enum_name(c.metric)));
  else
    s.check("training.metric", c.metric != DevMetric::error,
            "error is the classification error of model.kind ram, fc and cnn; text models use "
            "loss, bleu, wer or g2p");
  // Refused here, before heed train makes the output directory (the trainer checks it again
  // for configs built in code).
  s.check("training.doubly_stochastic",
          c.doubly_stochastic == 0 ||
              (kind == ModelKind::image2seq && model.attention_mode == AttentionMode::soft),
          "the penalty is on the soft attention weights of model.kind image2seq "
          "(model.attention.mode soft), not " + std::string(enum_name(kind)) + " with mode " +
              std::string(enum_name(model.attention_mode)) + "; set it to 0");
  // The location features (docs/MODELS.md#location-aware-attention); the model checks them
  // again (models/score_checks.h) for configs built in code.
  s.check("model.location_width", model.location_filters == 0 || model.location_width % 2 == 1,
          "the location filters' width must be odd (the features keep the source's length), "
          "got " + std::to_string(model.location_width));
  const char* feature_key = model.location_filters > 0 ? "model.location_filters" : "model.coverage";
  const bool features = model.location_filters > 0 || model.coverage;
  s.check(feature_key, !features || model.attention_mode != AttentionMode::none,
          "the location features enter the attention score, and model.attention.mode none does "
          "not attend");
  s.check(feature_key, !features || has_tanh_form(model.score),
          "the location features enter the additive score's tanh (model.score mlp or concat), "
          "not '" + std::string(enum_name(model.score)) + "'");
  s.check("training.coverage_loss",
          c.coverage_loss == 0 || model.attention_mode == AttentionMode::soft,
          "the coverage loss is on soft attention weights (model.attention.mode soft), not mode " +
              std::string(enum_name(model.attention_mode)) + "; set it to 0");
  s.check("training.label_smoothing", c.label_smoothing == 0 || !model.copy,
          "not supported with model.copy (copy attention's loss is the plain -log P(y)); set "
          "it to 0");
  const bool hard = !classifies_images(kind) && model.attention_mode == AttentionMode::hard;
  s.check("training.hard_soft_mix", c.hard_soft_mix == 0 || hard,
          "mixes the soft expectation into hard attention's training (model.attention.mode "
          "hard), not model.kind " + std::string(enum_name(kind)) +
              (classifies_images(kind) ? "" : " with mode " +
                                                  std::string(enum_name(model.attention_mode))) +
              "; set it to 0");
  if (answers_questions(kind))  // the task checks it again for configs built in code
    s.check("training.precision", c.precision == kernels::MatmulPrecision::f32,
            "model.kind " + std::string(enum_name(kind)) + " trains in fp32 (its products are "
            "small)");
  s.check("training.linear_start", !c.linear_start || config.data.babi.dev_fraction > 0,
          "linear start ends when the dev loss stops falling: it needs a dev set "
          "(data.babi.dev_fraction > 0)");
  s.check("training.linear_start_lr",
          c.linear_start_lr == 0 || c.linear_start || !answers_questions(kind),
          "it is linear start's learning rate: set training.linear_start: true, or remove it");
  s.check("training.precision", c.precision != kernels::MatmulPrecision::int8,
          "int8 is a decoding precision (heed translate --precision int8); training runs fp32 "
          "or bf16 products");
  s.check("training.precision",
          c.precision == kernels::MatmulPrecision::f32 || c.dtype == DType::f32,
          "bf16 products need dtype f32 (got " + std::string(enum_name(c.dtype)) + ")");
}

// A key the kind does not read is refused unless it holds its default (config.yaml of a model
// directory writes every key, and a default there says nothing).
void check_kinds(Sections& s, const TrainConfig& c) {
  static const TrainConfig defaults;
  const ModelKind kind = c.model.kind;
  for (const ConfigKey& key : config_keys()) {
    if (accepts(key.kinds, kind)) continue;
    if (!s.get(key.section()).has(key.leaf().c_str())) continue;
    if (key.get(c) == key.get(defaults)) continue;
    s.check(key.name, false,
            "not used by model.kind " + std::string(enum_name(kind)) + " (used by: " +
                kind_list(key.kinds) + "); remove it");
  }
}

std::string too_deep(const YAML::DeepRecursion& e) {
  return "nested more than " + std::to_string(e.depth()) +
         " levels deep (a heed config is at most four: section, key, value)";
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
  } catch (const YAML::DeepRecursion& e) {
    throw Error("--set " + text.substr(0, eq) + "=...: the value is not valid YAML (" +
                too_deep(e) + ")");
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
  Sections sections(std::move(root), source, set);
  for (const ConfigKey& key : config_keys()) read_key(sections.get(key.section()), key, c);
  sections.finish();
  check_generate(sections, c);
  check_data(sections, c);
  check_training(sections, c);
  sections.check("output", !c.output.empty(), "required: the model directory to write");
  check_kinds(sections, c);
  return c;
}
}  // namespace

TrainConfig parse_train_config(const std::string& yaml_text, const std::string& source,
                               const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own message for this is only "bad file".
    throw Error(source + ":" + std::to_string(e.mark.line + 1) + ": invalid YAML: " + too_deep(e));
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

std::string to_yaml(const TrainConfig& c) {
  YAML::Emitter e;
  e.SetDoublePrecision(17);
  e << YAML::BeginMap;
  std::vector<std::string> open;  // the sections being written, outermost first
  for (const ConfigKey& key : config_keys()) {
    std::vector<std::string> parts;
    std::stringstream ss(key.section());
    for (std::string p; std::getline(ss, p, '.');) parts.push_back(p);
    while (open.size() > parts.size() || !std::equal(open.begin(), open.end(), parts.begin())) {
      e << YAML::EndMap;
      open.pop_back();
    }
    for (; open.size() < parts.size(); open.push_back(parts[open.size()]))
      e << YAML::Key << parts[open.size()] << YAML::Value << YAML::BeginMap;
    e << YAML::Key << key.leaf() << YAML::Value;
    std::visit([&](const auto& v) { e << v; }, key.get(c));
  }
  for (; !open.empty(); open.pop_back()) e << YAML::EndMap;
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

}  // namespace heed
