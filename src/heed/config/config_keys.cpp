#include "heed/config/config_keys.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <optional>

namespace heed {

bool KeyRange::contains(double v) const {
  if (or_zero && v == 0) return true;
  return (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
}

namespace {

std::string number_text(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

}  // namespace

std::string KeyRange::text() const {
  // Appended piece by piece: GCC 12 warns wrongly (-Wrestrict) on "literal" + std::string&&.
  std::string t = or_zero ? "0 or " : "";
  if (std::isinf(hi)) {
    t += lo_open ? "> " : "≥ ";
    t += number_text(lo);
  } else if (std::isinf(lo)) {
    t += hi_open ? "< " : "≤ ";
    t += number_text(hi);
  } else {
    t += lo_open ? "(" : "[";
    t += number_text(lo);
    t += ", ";
    t += number_text(hi);
    t += hi_open ? ")" : "]";
  }
  return t;
}

KindSet kinds(std::initializer_list<ModelKind> list) {
  KindSet s = 0;
  for (ModelKind k : list) s |= KindSet{1} << static_cast<int>(k);
  return s;
}

KindSet kinds_where(bool (*holds)(const ModelKindTraits&)) {
  KindSet s = 0;
  for (const ModelKindTraits& t : kModelKindTraits)
    if (holds(t)) s |= KindSet{1} << static_cast<int>(t.kind);
  return s;
}

bool accepts(KindSet set, ModelKind kind) { return (set >> static_cast<int>(kind)) & 1; }

std::string kind_list(KindSet set) {
  std::string out;
  for (const auto& n : enum_names(ModelKind{}))
    if (accepts(set, n.value)) out += (out.empty() ? "" : ", ") + std::string(n.name);
  return out;
}

std::string ConfigKey::section() const {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? "" : name.substr(0, dot);
}

std::string ConfigKey::leaf() const {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

std::string key_value_text(const KeyValue& value) {
  struct {
    std::string operator()(const std::string& s) const { return s.empty() ? "\"\"" : s; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(std::uint64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return number_text(v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
  } text;
  return std::visit(text, value);
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Ranges, each with the message the reader gives when a value lies outside.
KeyRange at_least(double lo, std::string message) {
  return {lo, kInf, false, false, false, std::move(message)};
}
KeyRange above(double lo, std::string message) {
  return {lo, kInf, true, false, false, std::move(message)};
}
KeyRange at_most(double hi, std::string message) {
  return {-kInf, hi, false, false, false, std::move(message)};
}
// [lo, hi], with either end open.
KeyRange between(double lo, bool lo_open, double hi, bool hi_open, std::string message) {
  return {lo, hi, lo_open, hi_open, false, std::move(message)};
}
KeyRange zero_or(KeyRange r) {
  r.or_zero = true;
  return r;
}
KeyRange positive_int() { return at_least(1, "must be at least 1"); }
KeyRange non_negative(std::string message = "must be 0 or more") {
  return at_least(0, std::move(message));
}
KeyRange unit_interval() { return between(0, false, 1, true, "must be in [0, 1)"); }

// Accessors of a TrainConfig field, one per part of the config.
template <typename T>
using Ref = std::function<T&(TrainConfig&)>;

template <typename T>
Ref<T> top(T TrainConfig::*m) {
  return [m](TrainConfig& c) -> T& { return c.*m; };
}
template <typename T>
Ref<T> data(T DataConfig::*m) {
  return [m](TrainConfig& c) -> T& { return c.data.*m; };
}
template <typename T>
Ref<T> generate(T DataConfig::Generate::*m) {
  return [m](TrainConfig& c) -> T& { return c.data.generate.*m; };
}
template <typename T>
Ref<T> babi(T DataConfig::Babi::*m) {
  return [m](TrainConfig& c) -> T& { return c.data.babi.*m; };
}
template <typename T>
Ref<T> audio(T DataConfig::Audio::*m) {
  return [m](TrainConfig& c) -> T& { return c.data.audio.*m; };
}
template <typename T>
Ref<T> listener(T ListenerConfig::*m) {
  return [m](TrainConfig& c) -> T& { return c.model.listener.*m; };
}
template <typename T>
Ref<T> spec_augment(T TrainingConfig::SpecAugment::*m) {
  return [m](TrainConfig& c) -> T& { return c.training.spec_augment.*m; };
}
template <typename T>
Ref<T> memory(T MemoryConfig::*m) {
  return [m](TrainConfig& c) -> T& { return c.model.memory.*m; };
}
template <typename T>
Ref<T> side(SideConfig DataConfig::*s, T SideConfig::*m) {
  return [s, m](TrainConfig& c) -> T& { return c.data.*s.*m; };
}
template <typename T>
Ref<T> model(T ModelConfig::*m) {
  return [m](TrainConfig& c) -> T& { return c.model.*m; };
}
template <typename T>
Ref<T> model_transformer(T TransformerConfig::*m) {
  return [m](TrainConfig& c) -> T& { return c.model.transformer.*m; };
}
template <typename T>
Ref<T> ram(T RamConfig::*m) {
  return [m](TrainConfig& c) -> T& { return c.model.ram.*m; };
}
template <typename T>
Ref<T> classifier(T ImageClassifierConfig::*m) {
  return [m](TrainConfig& c) -> T& { return c.model.classifier.*m; };
}
template <typename T>
Ref<T> image(T ImageEncoderConfig::*m) {
  return [m](TrainConfig& c) -> T& { return c.model.image.*m; };
}
template <typename T>
Ref<T> training(T TrainingConfig::*m) {
  return [m](TrainConfig& c) -> T& { return c.training.*m; };
}

// A key whose KeyValue holds the field's own type.
template <typename T>
ConfigKey plain(std::string name, KeyType type, Ref<T> ref, std::vector<KeyRange> ranges,
                std::string help) {
  ConfigKey k;
  k.name = std::move(name);
  k.type = type;
  k.get = [ref](const TrainConfig& c) {
    TrainConfig& m = const_cast<TrainConfig&>(c);  // ref only reads here
    return KeyValue(ref(m));
  };
  k.set = [ref](TrainConfig& c, const KeyValue& v) {
    ref(c) = std::get<T>(v);
    return true;
  };
  k.ranges = std::move(ranges);
  k.help = std::move(help);
  return k;
}

ConfigKey text(std::string name, Ref<std::string> ref, std::string help) {
  return plain(std::move(name), KeyType::string, std::move(ref), {}, std::move(help));
}
ConfigKey integer(std::string name, Ref<std::int64_t> ref, std::vector<KeyRange> ranges,
                  std::string help) {
  return plain(std::move(name), KeyType::integer, std::move(ref), std::move(ranges),
               std::move(help));
}
ConfigKey seed(std::string name, Ref<std::uint64_t> ref, std::string help) {
  return plain(std::move(name), KeyType::unsigned_integer, std::move(ref), {}, std::move(help));
}
ConfigKey number(std::string name, Ref<double> ref, std::vector<KeyRange> ranges,
                 std::string help) {
  return plain(std::move(name), KeyType::number, std::move(ref), std::move(ranges),
               std::move(help));
}
ConfigKey flag(std::string name, Ref<bool> ref, std::string help) {
  return plain(std::move(name), KeyType::boolean, std::move(ref), {}, std::move(help));
}

// One of an enum's names (base/enum_names.h); aliases are read, the canonical name written.
template <typename E>
ConfigKey choice(std::string name, Ref<E> ref, std::string help) {
  ConfigKey k;
  k.name = std::move(name);
  k.type = KeyType::choice;
  k.get = [ref](const TrainConfig& c) {
    return KeyValue(std::string(enum_name(ref(const_cast<TrainConfig&>(c)))));
  };
  k.set = [ref](TrainConfig& c, const KeyValue& v) {
    return enum_from_name(std::get<std::string>(v), ref(c));
  };
  k.choices = enum_choices<E>();
  k.help = std::move(help);
  return k;
}

// The same where "" (unset) stands for a default decided elsewhere.
template <typename E>
ConfigKey choice(std::string name, Ref<std::optional<E>> ref, std::string help) {
  ConfigKey k;
  k.name = std::move(name);
  k.type = KeyType::choice;
  k.get = [ref](const TrainConfig& c) {
    const std::optional<E>& v = ref(const_cast<TrainConfig&>(c));
    return KeyValue(v ? std::string(enum_name(*v)) : std::string());
  };
  k.set = [ref](TrainConfig& c, const KeyValue& v) {
    const std::string& s = std::get<std::string>(v);
    if (s.empty()) {
      ref(c).reset();
      return true;
    }
    E e{};
    if (!enum_from_name(s, e)) return false;
    ref(c) = e;
    return true;
  };
  k.choices = enum_choices<E>();
  k.unset_allowed = true;
  k.help = std::move(help);
  return k;
}

ConfigKey only(KindSet set, ConfigKey k) {
  k.kinds = set;
  return k;
}
ConfigKey required(ConfigKey k) {
  k.default_text = "required";
  return k;
}

void add_side(std::vector<ConfigKey>& keys, const std::string& section, SideConfig DataConfig::*s,
              KindSet set) {
  const std::string p = section + ".";
  // The source side is the text kinds' alone.
  const auto only = [](KindSet readers, ConfigKey k) {
    k.kinds = readers;
    return k;
  };
  keys.push_back(only(set, choice(p + "tokenizer", side(s, &SideConfig::tokenizer),
      "`char` (code points), `whitespace` (pre-tokenised text) or `sentencepiece` (subwords)")));
  keys.push_back(only(set, flag(p + "lowercase", side(s, &SideConfig::lowercase),
      "lowercase before tokenising (docs/DATA.md, *Lowercasing*); dev references are lowercased "
      "too")));
  keys.push_back(only(set, text(p + "spm_model", side(s, &SideConfig::spm_model),
      "an existing SentencePiece `.model` file to use (copied into the model directory); `\"\"` "
      "= train one on the training side")));
  keys.push_back(only(set, integer(p + "spm_vocab_size", side(s, &SideConfig::spm_vocab_size),
      {at_least(8, "must be at least 8")},
      "size of a SentencePiece model trained here (an upper limit)")));
  keys.push_back(only(set, choice(p + "spm_model_type", side(s, &SideConfig::spm_model_type),
      "for a model trained here")));
  keys.push_back(only(set, number(p + "spm_character_coverage",
      side(s, &SideConfig::spm_character_coverage),
      {between(0, true, 1, false, "must be in (0, 1]")},
      "share of characters a trained model covers")));
  keys.push_back(only(set, integer(p + "vocab_max_size", side(s, &SideConfig::vocab_max_size),
      {zero_or(above(4, "must be 0 (no limit) or more than 4 (the special tokens)"))},
      "largest vocabulary, the 4 special tokens included; 0 = no limit")));
  keys.push_back(only(set, integer(p + "vocab_min_freq", side(s, &SideConfig::vocab_min_freq),
      {positive_int()}, "tokens seen fewer times in the training data become `<unk>`")));
  keys.push_back(only(set, integer(p + "max_length", side(s, &SideConfig::max_length),
      {non_negative("must be 0 (no limit) or more")},
      "training pairs with a longer side (counted with the EOS) are left out; 0 = no limit. Dev "
      "pairs are never left out for length")));
}

std::vector<ConfigKey> make_keys() {
  using K = ModelKind;
  // From the kinds' families (models/model_config.h): a new kind of an existing family reads
  // its family's keys without a change here.
  using T = const ModelKindTraits&;
  const KindSet text_kinds = kinds_where([](T t) { return is_sequence_to_sequence(t.kind); });
  const KindSet decoders = kinds_where([](T t) {
    return is_sequence_to_sequence(t.kind) || is_image_to_sequence(t.kind) ||
           transcribes_speech(t.kind);
  });
  const KindSet speech_kinds = kinds_where([](T t) { return transcribes_speech(t.kind); });
  const KindSet attends = kinds_where([](T t) { return t.attention_decoder; });
  const KindSet text_attends =
      kinds_where([](T t) { return is_sequence_to_sequence(t.kind) && t.attention_decoder; });
  const KindSet recurrent = kinds_where([](T t) { return t.recurrent; });
  // The recurrent encoder's keys: the recurrent text encoders' and the listener's.
  const KindSet rnn_encoders = (text_kinds & recurrent) | speech_kinds;
  const KindSet transformer = kinds({K::transformer});
  const KindSet classifiers = kinds_where([](T t) { return classifies_images(t.kind); });
  const KindSet image_kinds = kinds_where([](T t) { return takes_images(t.kind); });
  const KindSet ram_only = kinds({K::ram});
  const KindSet memory_kinds = kinds_where([](T t) { return answers_questions(t.kind); });
  const KindSet not_memory = ~memory_kinds;
  const KindSet target_files = ~(memory_kinds | speech_kinds);  // read data.train_target
  std::vector<ConfigKey> k;

  // ---- data
  k.push_back(only(text_kinds, required(text("data.train_source", data(&DataConfig::train_source),
      "training source file: UTF-8, one sentence per line (docs/DATA.md); text kinds only"))));
  k.push_back(only(target_files, required(text("data.train_target", data(&DataConfig::train_target),
      "training target file, line *i* translates source line *i*; for the image kinds one class "
      "name (image2seq: a line of class names) per training image"))));
  k.push_back(only(text_kinds, text("data.dev_source", data(&DataConfig::dev_source),
      "development source file; give both dev files or neither. Without a dev set there is no "
      "validation and `best.safetensors` is the latest weights")));
  k.push_back(only(target_files, text("data.dev_target", data(&DataConfig::dev_target),
      "development target file (the references for BLEU/WER); a tab separates alternative "
      "references on a line (as `heed data g2p` writes them): the dev loss uses the first, "
      "`bleu` and `g2p` use all. Image kinds: the dev images' class names")));
  k.push_back(only(image_kinds, text("data.train_images", data(&DataConfig::train_images),
      "the training images, a gzipped IDX file as `heed data images` writes it "
      "(`train-images-idx3-ubyte.gz`), required unless `generate` draws the set; "
      "`train_target` then holds one class name per image and `train_source` stays empty")));
  k.push_back(only(image_kinds, text("data.dev_images", data(&DataConfig::dev_images),
      "the dev images, with `dev_target` their class names; both or neither")));
  k.push_back(only(classifiers, choice("data.generate.kind", generate(&DataConfig::Generate::kind),
      "`translated` or `cluttered` (`heed data images --kind`); `\"\"` = no generation, "
      "`train_images` is read. A canvas set's items do not move (use `heed data images --kind "
      "canvas` and `train_images`)")));
  k.push_back(only(classifiers, text("data.generate.source", generate(&DataConfig::Generate::source),
      "the directory of Fashion-MNIST's gzipped IDX files (Debian's `dataset-fashion-mnist`); "
      "its training split is read")));
  k.push_back(only(classifiers, integer("data.generate.count", generate(&DataConfig::Generate::count),
      {positive_int()},
      "images per epoch (`--count`); items are taken in shuffled passes over the source")));
  k.push_back(only(classifiers, integer("data.generate.size", generate(&DataConfig::Generate::size),
      {zero_or(between(kFashionMnistSide, false, 4096, false,
                       "must be 0 (60) or a side from 28 (an item's) up to 4096"))},
      "the canvas side (`--size`); 0 = 60")));
  k.push_back(only(classifiers, integer("data.generate.pieces",
      generate(&DataConfig::Generate::pieces), {between(0, false, 64, false, "must be between 0 and 64")},
      "cluttered: pieces of clutter per image (`--pieces`)")));
  k.push_back(only(classifiers, integer("data.generate.piece_size",
      generate(&DataConfig::Generate::piece_size),
      {between(1, false, kFashionMnistSide, false, "must be between 1 and 28 (an item's side)")},
      "cluttered: a piece's side (`--piece-size`)")));
  k.push_back(only(classifiers, seed("data.generate.seed", generate(&DataConfig::Generate::seed),
      "the set's seed (`--seed`): epoch 1's canvases, and with the epoch every later one's")));
  k.push_back(only(memory_kinds, required(text("data.babi.dir", babi(&DataConfig::Babi::dir),
      "memn2n: the directory of bAbI's task files `qa<N>_<name>_train.txt` (bAbI v1.2's `en/` "
      "or `en-10k/`; [DATA.md](DATA.md#babi-memory-networks))"))));
  k.push_back(only(memory_kinds, text("data.babi.tasks", babi(&DataConfig::Babi::tasks),
      "the tasks trained on, jointly: `all` (1 to 20) or a list such as `1,2,5-7`")));
  k.push_back(only(memory_kinds, number("data.babi.dev_fraction",
      babi(&DataConfig::Babi::dev_fraction),
      {between(0, false, 1, true, "must be in [0, 1)")},
      "the share of each task's training questions held out for validation (0: no dev set)")));
  k.push_back(only(memory_kinds, seed("data.babi.split_seed", babi(&DataConfig::Babi::split_seed),
      "which questions are held out; `heed eval` draws the same ones from the model's config")));
  k.push_back(only(speech_kinds, required(text("data.train_manifest",
      data(&DataConfig::train_manifest),
      "las: the training utterances, a `.tsv` file: per line a WAV file's path (relative to "
      "the manifest's folder) TAB its transcript, as `heed data digits` writes `train.tsv` "
      "([DATA.md](DATA.md#speech-manifests)); the transcripts are tokenised by "
      "`data.target.tokenizer`"))));
  k.push_back(only(speech_kinds, text("data.dev_manifest", data(&DataConfig::dev_manifest),
      "las: the dev utterances, likewise (`dev.tsv`); `\"\"` = no dev set")));
  k.push_back(only(speech_kinds, integer("data.audio.rate", audio(&DataConfig::Audio::rate),
      {between(1000, false, 192000, false, "must be between 1000 and 192000 (Hz)")},
      "las: the sample rate the features are computed at; every file is resampled to it "
      "(libsoxr)")));
  k.push_back(only(speech_kinds, integer("data.audio.mels", audio(&DataConfig::Audio::mels),
      {between(1, false, 512, false, "must be between 1 and 512")},
      "las: log-mel bins per frame (25 ms windows every 10 ms, torchaudio's definition; "
      "[DATA.md](DATA.md#audio))")));
  k.push_back(only(speech_kinds, flag("data.audio.normalize", audio(&DataConfig::Audio::normalize),
      "las: shift and scale each bin to mean 0 and variance 1 over the utterance")));
  k.push_back(only(speech_kinds, integer("data.audio.stack", audio(&DataConfig::Audio::stack),
      {between(1, false, 16, false, "must be between 1 and 16")},
      "las: join every k consecutive frames into one of k · `mels` values (after "
      "normalisation; the last zero-padded), so the listener reads k times fewer, longer "
      "frames (k · 10 ms); 1 = none")));
  k.push_back(integer("data.max_dev_sentences", data(&DataConfig::max_dev_sentences),
      {non_negative("must be 0 (all) or more")},
      "validate on the first N dev pairs (image kinds: images) only; 0 = all"));
  k.push_back(only(text_kinds, flag("data.spm_joint", data(&DataConfig::spm_joint),
      "one SentencePiece model for both sides (both `tokenizer: sentencepiece`, the same "
      "`lowercase`): `data.source.spm_model`, or one trained on the source and target training "
      "lines together with `data.source`'s `spm_*` keys (`data.target`'s are not read), so a "
      "word is cut into the same pieces on both sides, as copy attention wants (it copies "
      "source pieces into the target) ([DATA.md](DATA.md#joint-sentencepiece))")));
  add_side(k, "data.source", &DataConfig::source, text_kinds);
  add_side(k, "data.target", &DataConfig::target, not_memory);  // las: the transcripts

  // ---- model
  k.push_back(choice("model.kind", model(&ModelConfig::kind),
      "`bahdanau` (bi-GRU encoder, additive attention), `luong` (LSTM stack, global/local "
      "attention), `noattn` (fixed-context baseline), `ram` (the recurrent attention model: "
      "classifies images), `fc` and `cnn` (a fully connected network and a small CNN over the "
      "whole image, ram's baselines) or `image2seq` (a CNN encoder's grid attended by the "
      "bahdanau decoder: images to class-name sequences) or `memn2n` (the end-to-end memory "
      "network: answers a question about a story, bAbI), `transformer` (encoder and decoder "
      "stacks of multi-head attention) or `las` (listen, attend and spell: a pyramidal recurrent "
      "listener over log-mel frames attended by the bahdanau decoder: speech to text)"));
  const KeyRange from_vocab = non_negative("must be 0 (from the vocabulary) or more");
  k.push_back(only(text_kinds | memory_kinds, integer("model.src_vocab", model(&ModelConfig::src_vocab),
      {from_vocab}, "set from the source vocabulary; leave 0 (a different non-zero value is an "
      "error)")));
  k.push_back(integer("model.tgt_vocab", model(&ModelConfig::tgt_vocab), {from_vocab},
      "set from the target vocabulary; leave 0 (a different non-zero value is an error)"));
  k.push_back(only((decoders & recurrent) | memory_kinds, integer("model.emb_dim", model(&ModelConfig::emb_dim),
      {positive_int()}, "embedding size (memn2n: d, the size of every memory and of the "
      "question's state)")));
  k.push_back(only(rnn_encoders, choice("model.encoder_cell", model(&ModelConfig::encoder_cell),
      "`\"\"` = the model's default (GRU for bahdanau/noattn, LSTM for luong and las)")));
  k.push_back(only(rnn_encoders, integer("model.enc_hidden", model(&ModelConfig::enc_hidden),
      {positive_int()}, "encoder hidden size per direction")));
  k.push_back(only(text_kinds | speech_kinds, integer("model.enc_layers", model(&ModelConfig::enc_layers),
      {positive_int()}, "encoder depth (transformer: encoder layers; las: the listener's layers, at "
      "least 1 + log2 `pyramid`)")));
  k.push_back(only(rnn_encoders, flag("model.bidirectional", model(&ModelConfig::bidirectional),
      "bidirectional encoder")));
  k.push_back(only(decoders & recurrent, integer("model.dec_hidden", model(&ModelConfig::dec_hidden),
      {positive_int()}, "decoder hidden size")));
  k.push_back(only(decoders, integer("model.dec_layers", model(&ModelConfig::dec_layers),
      {positive_int()}, "decoder LSTM stack depth (luong; the GRU decoders have 1); transformer: decoder layers")));
  k.push_back(only(transformer, integer("model.d_model", model_transformer(&TransformerConfig::d_model),
      {positive_int()}, "the width of every layer and of the embeddings")));
  k.push_back(only(transformer, integer("model.heads", model_transformer(&TransformerConfig::heads),
      {positive_int()}, "attention heads per attention layer; must divide `d_model`")));
  k.push_back(only(transformer, integer("model.ff_dim", model_transformer(&TransformerConfig::ff_dim),
      {positive_int()}, "the inner size of the position-wise feed-forward layers")));
  k.push_back(only(transformer, choice("model.norm", model_transformer(&TransformerConfig::norm),
      "layer norm `pre` (before each sub-layer, in its residual branch) or `post` (after the "
      "residual sum, as in the original paper)")));
  k.push_back(only(transformer, choice("model.positions",
      model_transformer(&TransformerConfig::positions),
      "`sinusoidal` (fixed) or `learned` (a table of `max_positions` rows per side)")));
  k.push_back(only(transformer, integer("model.max_positions",
      model_transformer(&TransformerConfig::max_positions), {positive_int()},
      "learned positions: the longest source and target (tokens with EOS). Longer training "
      "and dev pairs are left out, longer input lines refused by `heed translate`, and a "
      "decode stops at this many steps")));
  k.push_back(only(transformer, integer("model.alignment_layer",
      model_transformer(&TransformerConfig::alignment_layer), {non_negative()},
      "the decoder layer (1 to `dec_layers`) whose encoder-decoder attention is the model's "
      "attention output (alignments, `--attention`, `heed show`); 0 = the last")));
  k.push_back(only(transformer, integer("model.alignment_head",
      model_transformer(&TransformerConfig::alignment_head), {non_negative()},
      "that layer's head (1 to `heads`) read as the attention; 0 = the heads averaged")));
  k.push_back(only(transformer, flag("model.share_embeddings",
      model_transformer(&TransformerConfig::share_embeddings),
      "the encoder and the decoder read one embedding table (`src_emb.weight`; with "
      "`tie_embeddings` also the output layer's weight) over a joint vocabulary that training "
      "builds from both sides' lines with `data.source`'s `vocab_max_size` and "
      "`vocab_min_freq`. Both sides must tokenise alike: the same `tokenizer`, and for "
      "`sentencepiece` `data.spm_joint: true`")));
  k.push_back(only(attends, integer("model.attn_dim", model(&ModelConfig::attn_dim),
      {non_negative()}, "additive / concat attention size; 0 = `dec_hidden`")));
  k.push_back(only(kinds({K::bahdanau, K::noattn, K::image2seq, K::las}),
      integer("model.out_dim", model(&ModelConfig::out_dim), {non_negative()},
              "deep-output size; 0 = `dec_hidden`")));
  // The score's names come from the attention layer's own table.
  k.push_back(only(attends, choice("model.score", model(&ModelConfig::score),
      "luong: any (`additive` is another name of `mlp`); bahdanau, image2seq and las: `mlp`")));
  k.push_back(only(kinds({K::luong}), flag("model.input_feed", model(&ModelConfig::input_feed),
      "input feeding")));
  k.push_back(only(decoders & recurrent, flag("model.local_p", model(&ModelConfig::local_p),
      "local-p attention (luong; refused by the others)")));
  k.push_back(only(kinds({K::luong}), integer("model.window", model(&ModelConfig::window),
      {positive_int()}, "local-p half-width D")));
  k.push_back(only(kinds({K::luong}), integer("model.max_src_len", model(&ModelConfig::max_src_len),
      {positive_int()},
      "longest source for the `location` score (training and dev sources longer than this "
      "are left out)")));
  k.push_back(only(attends, integer("model.location_filters",
      model(&ModelConfig::location_filters), {non_negative("must be 0 (off) or more")},
      "location-aware attention (Chorowski et al. 2015): k filters convolved with the previous "
      "step's attention weights, their features added inside the additive score's tanh; 0 = "
      "off. bahdanau, image2seq, and luong with score `mlp` or `concat` "
      "([MODELS.md](MODELS.md#location-aware-attention))")));
  k.push_back(only(attends, integer("model.location_width", model(&ModelConfig::location_width),
      {positive_int()}, "r: the width of each location filter, odd (the features keep the "
      "source's length)")));
  k.push_back(only(attends, flag("model.coverage", model(&ModelConfig::coverage),
      "coverage (See et al. 2017): the sum of the previous steps' attention weights enters the "
      "additive score's tanh; the same kinds and scores as `location_filters` "
      "([MODELS.md](MODELS.md#coverage))")));
  k.push_back(only(decoders, number("model.dropout", model(&ModelConfig::dropout),
      {unit_interval()}, "dropout rate in training")));
  k.push_back(only(decoders, flag("model.tie_embeddings", model(&ModelConfig::tie_embeddings),
      "the target embedding shares the output layer's weight")));
  k.push_back(only(text_attends | transformer, flag("model.copy", model(&ModelConfig::copy),
      "copy attention (See et al. 2017, docs/MODELS.md#copy-attention): p_gen mixes the output "
      "distribution with the attention weights over the source words, which extend the target "
      "vocabulary, so words it lacks can be copied; soft attention and untied embeddings only. "
      "The Transformer copies through its attention output (`model.alignment_layer`, "
      "`model.alignment_head`) and has no coverage")));
  k.push_back(only(ram_only, integer("model.glimpses", ram(&RamConfig::glimpses), {positive_int()},
      "T: glimpses per image (the first at the centre)")));
  k.push_back(only(ram_only, integer("model.glimpse_size", ram(&RamConfig::glimpse_size),
      {positive_int()}, "g: the side of every patch the sensor returns")));
  k.push_back(only(ram_only, integer("model.scales", ram(&RamConfig::scales),
      {positive_int(),
       at_most(8, "must be at most 8 (the largest patch is glimpse_size x 2^(scales - 1))")},
      "k: patches of sides g, 2g, ..., 2^(k−1)·g around each location, each averaged down to "
      "g×g (the largest at most 4096 pixels)")));
  k.push_back(only(ram_only, integer("model.glimpse_hidden", ram(&RamConfig::glimpse_hidden),
      {positive_int()}, "size of h_g, what the patches become")));
  k.push_back(only(ram_only, integer("model.location_hidden", ram(&RamConfig::location_hidden),
      {positive_int()}, "size of h_l, what the location becomes")));
  k.push_back(only(ram_only, integer("model.glimpse_dim", ram(&RamConfig::glimpse_dim),
      {positive_int()}, "size of g_t, the glimpse network's output")));
  k.push_back(only(ram_only, choice("model.core", ram(&RamConfig::core),
      "`rnn` (a ReLU RNN cell) or `lstm`")));
  k.push_back(only(ram_only, integer("model.core_hidden", ram(&RamConfig::core_hidden),
      {positive_int()}, "size of the core state h_t")));
  k.push_back(only(ram_only, number("model.location_std", ram(&RamConfig::location_std),
      {between(0, true, 1, false, "must be in (0, 1] (locations span [-1, 1])")},
      "σ of the Gaussian location policy (locations span [−1, 1])")));
  k.push_back(only(ram_only, integer("model.sample_paths", ram(&RamConfig::sample_paths),
      {positive_int()},
      "at test time (validation, `heed eval`): 1 follows the mean locations, M > 1 averages the "
      "class probabilities of M sampled paths")));
  k.push_back(only(ram_only, flag("model.random_locations", ram(&RamConfig::random_locations),
      "the paper's ablation: l_1..l_{T−1} uniform in [−1, 1]² in training and at test time, the "
      "policy and baseline unused, the loss the cross-entropy alone "
      "([MODELS.md](MODELS.md#recurrent-attention-model))")));
  k.push_back(only(classifiers, integer("model.image_height",
      classifier(&ImageClassifierConfig::image_height), {non_negative()},
      "the image height the model reads; 0 = set by `heed train` from the training images (a "
      "non-zero value must match them)")));
  k.push_back(only(classifiers, integer("model.image_width",
      classifier(&ImageClassifierConfig::image_width), {non_negative()},
      "the image width, likewise")));
  k.push_back(only(kinds({K::fc}), integer("model.fc_layers",
      classifier(&ImageClassifierConfig::fc_layers),
      {non_negative(), at_most(16, "must be at most 16")},
      "hidden layers (0 = a linear classifier over the pixels)")));
  k.push_back(only(kinds({K::fc}), integer("model.fc_hidden",
      classifier(&ImageClassifierConfig::fc_hidden), {positive_int()},
      "units of each hidden layer (ReLU)")));
  k.push_back(only(kinds({K::cnn, K::image2seq}), integer("model.conv_layers",
      image(&ImageEncoderConfig::conv_layers),
      {positive_int(), at_most(8, "must be at most 8 (each layer halves the side)")},
      "convolution layers, each conv 3×3 (padding 1) + ReLU + 2×2 max-pool, so each halves "
      "the image's side (`nn/conv_stack.h`)")));
  k.push_back(only(kinds({K::cnn, K::image2seq}), integer("model.conv_channels",
      image(&ImageEncoderConfig::conv_channels), {positive_int()},
      "channels of the first layer; each next layer has twice as many")));
  k.push_back(only(speech_kinds, integer("model.pyramid", listener(&ListenerConfig::pyramid),
      {between(1, false, 1024, false, "must be a power of two from 1 to 1024")},
      "las: the listener's time reduction, a power of two: layers 1..log2(pyramid) each join "
      "adjacent pairs of the layer below, so the speller attends over pyramid times fewer "
      "annotations than frames ([MODELS.md](MODELS.md#listen-attend-and-spell))")));
  k.push_back(only(speech_kinds, number("model.ctc_weight", listener(&ListenerConfig::ctc_weight),
      {unit_interval()},
      "las: joint CTC training (Kim et al. 2017): a linear head over the listener's "
      "annotations scores every symbol and the blank at each annotation, and the training loss "
      "is (1 - λ) × the speller's cross-entropy + λ × the CTC loss (per target token); λ = this "
      "value, 0 = no head. The head is trained, saved and exported with the model; decoding "
      "reads the speller, and `heed transcribe` / `heed eval --speech` `--ctc-weight` can "
      "re-rank its beam with the head ([MODELS.md](MODELS.md#joint-ctc-training))")));
  k.push_back(only(speech_kinds, integer("model.frontend_layers",
      listener(&ListenerConfig::frontend_layers),
      {non_negative("must be 0 (no front end) or more"), at_most(4, "must be at most 4")},
      "las: convolution layers before the listener, each conv 3×3 (padding 1) + ReLU + 2×2 "
      "max-pool over the utterance's (frames, mel bins) image, so each halves time and bins; "
      "the listener reads the last layer's channels × bins per step, and the speller attends "
      "over pyramid × 2^layers times fewer annotations than frames. Needs `data.audio.stack: 1` "
      "and at least 2^layers mel bins; 0 = none "
      "([MODELS.md](MODELS.md#a-convolutional-front-end))")));
  k.push_back(only(speech_kinds, integer("model.frontend_channels",
      listener(&ListenerConfig::frontend_channels),
      {positive_int(), at_most(1024, "must be at most 1024")},
      "las: channels of the front end's first layer; each next layer has twice as many")));
  k.push_back(only(speech_kinds, integer("model.feature_dim", listener(&ListenerConfig::feature_dim),
      {non_negative("must be 0 (from data.audio.mels) or more")},
      "las: the values of a frame the listener reads; set from `data.audio` (mels × stack), "
      "leave 0 (a "
      "different non-zero value is an error)")));
  k.push_back(only(memory_kinds, integer("model.hops", memory(&MemoryConfig::hops),
      {positive_int(), at_most(16, "must be at most 16")},
      "K: hops of attention over the memory, with adjacent weight tying (K + 1 embedding "
      "tables)")));
  k.push_back(only(memory_kinds, integer("model.memory_size", memory(&MemoryConfig::memory_size),
      {positive_int(), at_most(100000, "must be at most 100000")},
      "the memory holds a story's last N statements before the question")));
  k.push_back(only(memory_kinds, flag("model.position_encoding",
      memory(&MemoryConfig::position_encoding),
      "weight each word of a statement by its position (Sukhbaatar et al. 2015, sec. 4.1); "
      "false: a plain bag of words")));
  k.push_back(only(memory_kinds, flag("model.temporal_encoding",
      memory(&MemoryConfig::temporal_encoding),
      "add a learned row per statement age to each memory (T_A, T_C)")));
  k.push_back(only(memory_kinds, flag("model.pad_memory", memory(&MemoryConfig::pad_memory),
      "the hops' softmax also counts the memory's empty slots (`memory_size` minus the story's "
      "statements), each of score 0 and reading nothing, as the MemN2N code's fixed-size "
      "memory of null statements does; false: only the story's statements "
      "([MODELS.md](MODELS.md#memory-network))")));
  k.push_back(only(attends, choice("model.attention.mode", model(&ModelConfig::attention_mode),
      "`soft`: the context is the weighted average of the annotations; `hard`: one position "
      "sampled from the weights in training, trained with REINFORCE (bahdanau, luong and "
      "image2seq, any score, also local-p; refused for noattn); `none`: image2seq and las only, "
      "no attention (image2seq: the mean annotation at every step; las: the listener's final "
      "states; the text models' baseline is `kind: noattn`)")));
  k.push_back(only(attends, choice("model.attention.hard_eval", model(&ModelConfig::hard_eval),
      "what a `hard` model reads when not training (decoding, dev loss): `argmax` (the most "
      "probable position's annotation) or `expectation` (the soft context)")));

  // ---- training
  k.push_back(choice("training.optimizer", training(&TrainingConfig::optimizer),
      "`adamw`: decoupled weight decay; PyTorch semantics"));
  k.push_back(number("training.lr", training(&TrainingConfig::lr),
      {above(0, "must be positive")}, "base learning rate"));
  k.push_back(number("training.beta1", training(&TrainingConfig::beta1), {unit_interval()},
      "Adam's first moment decay"));
  k.push_back(number("training.beta2", training(&TrainingConfig::beta2), {unit_interval()},
      "Adam's second moment decay"));
  k.push_back(number("training.eps", training(&TrainingConfig::eps),
      {above(0, "must be positive")}, "Adam epsilon"));
  k.push_back(number("training.weight_decay", training(&TrainingConfig::weight_decay),
      {non_negative()}, "L2 (adam, sgd) or decoupled (adamw) weight decay"));
  k.push_back(number("training.momentum", training(&TrainingConfig::momentum), {unit_interval()},
      "SGD momentum"));
  k.push_back(flag("training.nesterov", training(&TrainingConfig::nesterov),
      "SGD Nesterov momentum (needs momentum > 0)"));
  k.push_back(choice("training.schedule", training(&TrainingConfig::schedule),
      "the learning-rate schedule (below)"));
  k.push_back(number("training.decay_factor", training(&TrainingConfig::decay_factor),
      {between(0, true, 1, true, "must be in (0, 1)")},
      "plateau and step: the learning rate is multiplied by this"));
  k.push_back(integer("training.plateau_patience", training(&TrainingConfig::plateau_patience),
      {non_negative()}, "plateau: validations without improvement tolerated before a decay"));
  k.push_back(number("training.min_lr", training(&TrainingConfig::min_lr), {non_negative()},
      "plateau and step: the learning rate never goes below this"));
  k.push_back(integer("training.decay_steps", training(&TrainingConfig::decay_steps),
      {positive_int()}, "step: the learning rate is multiplied by `decay_factor` after every "
      "this many updates (PyTorch's StepLR counted in updates), never below `min_lr`"));
  k.push_back(integer("training.warmup_steps", training(&TrainingConfig::warmup_steps),
      {non_negative()}, "warmup: steps of linear warm-up from 0 to `lr`"));
  k.push_back(choice("training.decay", training(&TrainingConfig::decay),
      "warmup: after warm-up `inverse_sqrt` (lr·sqrt(warmup/step)), `linear` (to 0 at "
      "`max_steps`, which must then exceed `warmup_steps`, and/or at `max_seconds`, whichever "
      "comes first) or `none`"));
  k.push_back(number("training.clip_norm", training(&TrainingConfig::clip_norm),
      {non_negative("must be 0 (off) or positive")},
      "clip the global gradient norm to this; 0 = no clipping"));
  k.push_back(choice("training.clip_scope", training(&TrainingConfig::clip_scope),
      "what `clip_norm` limits: `global`, the norm of all gradients together, or `tensor`, "
      "each parameter's gradient on its own (the MemN2N code's clipping, "
      "[TRAINING.md](TRAINING.md#memory-networks))"));
  k.push_back(number("training.label_smoothing", training(&TrainingConfig::label_smoothing),
      {unit_interval()}, "label smoothing ε"));
  k.push_back(integer("training.max_tokens", training(&TrainingConfig::max_tokens),
      {positive_int()},
      "batch budget: rows × longest side, padding included (an image counts as one token)"));
  const KeyRange no_limit = non_negative("must be 0 (no limit) or more");
  k.push_back(integer("training.max_sentences", training(&TrainingConfig::max_sentences),
      {no_limit}, "at most this many pairs (images) per batch; 0 = no limit"));
  k.push_back(integer("training.sort_pool", training(&TrainingConfig::sort_pool), {no_limit},
      "batching: the shuffled pairs are taken this many at a time, each pool sorted by "
      "(source, target) length and cut into batches, and the batches shuffled; 0 = the whole "
      "corpus as one pool. A larger pool puts more alike lengths together: less padding, so "
      "more real tokens in a batch of `max_tokens` (CMUdict G2P, 4,000 tokens: 20.5% of the "
      "target positions padding with 8,192, 3.0% with 0)"));
  k.push_back(integer("training.max_steps", training(&TrainingConfig::max_steps), {no_limit},
      "stop after this many updates; 0 = no limit"));
  k.push_back(number("training.max_seconds", training(&TrainingConfig::max_seconds), {no_limit},
      "stop once training has run this many seconds in all (resumed sessions count); 0 = no "
      "limit. A time budget depends on the machine's speed, so a run stopped by it is not "
      "repeatable bit for bit. Under mpirun the ranks stop together, at the first step where "
      "any rank's clock has reached the budget, and a `linear` decay reads rank 0's clock on "
      "every rank"));
  k.push_back(integer("training.max_epochs", training(&TrainingConfig::max_epochs), {no_limit},
      "stop after this many passes over the data; 0 = no limit (one of `max_steps`, "
      "`max_epochs`, `max_seconds` must be set)"));
  k.push_back(integer("training.validate_every", training(&TrainingConfig::validate_every),
      {positive_int()}, "validate on the dev set every N steps"));
  k.push_back(choice("training.metric", training(&TrainingConfig::metric),
      "what decides the best model, plateau and early stopping: `loss` (dev cross-entropy, "
      "lower is better), `error` (model.kind ram, fc, cnn, image2seq and las only, and the "
      "image kinds' only other choice: the classifiers' dev classification error in %, "
      "image2seq's share of dev images whose greedily decoded class names differ from the "
      "target, las's share of dev utterances whose greedy transcript differs from the "
      "reference (the string error), in %; lower), `bleu` "
      "(sacreBLEU on greedy dev translations, higher), `wer` (word error rate of greedy dev "
      "outputs against the first reference, lower; las: of the greedy transcripts), `g2p` (the G2P word error rate: share of "
      "dev words whose output matches none of their references, lower; PER is logged too)"));
  k.push_back(integer("training.max_output_factor", training(&TrainingConfig::max_output_factor),
      {positive_int()},
      "greedy dev decoding emits at most factor·(source length) + 10 tokens, each sentence by "
      "its own length"));
  k.push_back(integer("training.early_stopping", training(&TrainingConfig::early_stopping),
      {non_negative("must be 0 (off) or more")},
      "stop after N validations in a row without improvement; 0 = off"));
  k.push_back(integer("training.save_every", training(&TrainingConfig::save_every),
      {non_negative("must be 0 (= validate_every) or more")},
      "write a step checkpoint and the training state every N steps; 0 = `validate_every`"));
  k.push_back(integer("training.keep_checkpoints", training(&TrainingConfig::keep_checkpoints),
      {non_negative()},
      "step checkpoints kept (`checkpoints/step_<n>.safetensors`, the oldest removed); 0 = "
      "none"));
  k.push_back(integer("training.log_every", training(&TrainingConfig::log_every),
      {positive_int()}, "a progress line (and a `train.log` line) every N steps"));
  k.push_back(seed("training.seed", training(&TrainingConfig::seed),
      "seeds initialisation, dropout, hard attention's samples and the batch order"));
  k.push_back(integer("training.threads", training(&TrainingConfig::threads),
      {non_negative("must be 0 (the default) or more")},
      "threads for BLAS and heed's kernels; 0 = the OpenMP default. Resume bit-identically "
      "with the same count"));
  k.push_back(number("training.allreduce_bucket_mb", training(&TrainingConfig::allreduce_bucket_mb),
      {between(0, false, 1024, false, "must be in [0, 1024] (MiB; 0 = one bucket per parameter)")},
      "data-parallel runs under mpirun ([DISTRIBUTED.md](DISTRIBUTED.md)): the gradients are "
      "summed in buckets of about this many MiB, each started during the backward pass as soon "
      "as its gradients are final; 0 = one bucket per parameter"));
  k.push_back(only(attends | ram_only,
      number("training.reinforce_weight", training(&TrainingConfig::reinforce_weight),
             {non_negative()},
             "hard attention (`model.attention.mode: hard`) and ram: λ_r, the weight of the "
             "REINFORCE term (0 leaves the attention scores untrained)")));
  k.push_back(only(attends, number("training.entropy_weight",
      training(&TrainingConfig::entropy_weight), {non_negative()},
      "hard attention only: λ_e, the weight of the attention-entropy bonus")));
  k.push_back(only(kinds({K::image2seq}), number("training.doubly_stochastic",
      training(&TrainingConfig::doubly_stochastic), {non_negative("must be 0 (off) or more")},
      "soft attention only: λ of the doubly stochastic attention penalty (λ/N) Σ_b Σ_i (1 − "
      "Σ_t α_bti)² added to the loss ([MODELS.md](MODELS.md#image-to-sequence)); 0 = off. "
      "Nonzero with another kind or mode is refused when the config is read (exit 2, no "
      "directory made)")));
  k.push_back(only(attends, number("training.coverage_loss",
      training(&TrainingConfig::coverage_loss), {non_negative("must be 0 (off) or more")},
      "soft attention only: λ of the coverage loss (λ/N) Σ_b Σ_t Σ_j min(α_btj, c_btj), c_bt "
      "the sum of the earlier steps' weights, added to the cross-entropy (See et al. 2017 use "
      "1; [MODELS.md](MODELS.md#coverage)); the dev coverage loss is logged at each validation. "
      "0 = off")));
  k.push_back(only(attends, number("training.baseline_decay",
      training(&TrainingConfig::baseline_decay), {unit_interval()},
      "hard attention only: decay of the moving-average reward baseline")));
  k.push_back(only(attends, number("training.hard_soft_mix",
      training(&TrainingConfig::hard_soft_mix),
      {between(0, false, 1, false,
               "must be in [0, 1] (the probability that a batch reads the soft expectation)")},
      "hard attention only (refused otherwise unless 0): the probability that a training batch "
      "reads the soft expectation Σ_j α_tj h_j instead of samples, and so has no REINFORCE term "
      "(Xu et al. 2015 use 0.5; [MODELS.md](MODELS.md#hard-attention)). Decided from `seed` and "
      "the step alone; 0 = every batch samples")));
  k.push_back(only(memory_kinds, flag("training.linear_start",
      training(&TrainingConfig::linear_start),
      "memn2n: train with every hop's softmax removed (the weights are the raw scores) until "
      "the dev loss stops falling (`linear_start_patience`), then put the softmax back ([TRAINING.md](TRAINING.md#memory-networks)); "
      "needs a dev set")));
  k.push_back(only(memory_kinds, integer("training.linear_start_patience",
      training(&TrainingConfig::linear_start_patience), {positive_int()},
      "memn2n with `linear_start`: the softmax is put back after this many validations in a "
      "row without a new lowest dev loss")));
  k.push_back(only(memory_kinds, integer("training.linear_start_epochs",
      training(&TrainingConfig::linear_start_epochs), {non_negative("must be 0 (no limit) or more")},
      "memn2n with `linear_start`: the softmax is put back after this many epochs at the "
      "latest (the paper's code trains 30 epochs of its joint model linearly); 0 = no limit")));
  k.push_back(only(memory_kinds, number("training.linear_start_lr",
      training(&TrainingConfig::linear_start_lr), {non_negative()},
      "memn2n with `linear_start`: the learning rate while linear start lasts, and the `schedule` "
      "then starts counting its updates afresh from the first one with the softmax back (the "
      "MemN2N code's joint training: 30 linear epochs at 0.005, then 60 with the softmax from "
      "0.005 halved every 15); 0 = one schedule throughout")));
  k.push_back(only(memory_kinds, number("training.random_empty_memories",
      training(&TrainingConfig::random_empty_memories),
      {between(0, false, 1, false, "must be in [0, 1]")},
      "memn2n: in training, up to this share of a story's length in empty memories is inserted "
      "at random between its statements' temporal indices (Sukhbaatar's random noise: 0.1); "
      "0 = off")));
  k.push_back(only(speech_kinds, integer("training.spec_augment.freq_masks",
      spec_augment(&TrainingConfig::SpecAugment::freq_masks), {non_negative()},
      "las: SpecAugment (Park et al. 2019, no time warping) on each training utterance, drawn "
      "anew at every step, never on the dev set: masks over the mel bins; 0 with `time_masks` "
      "0 = off ([DATA.md](DATA.md#audio))")));
  k.push_back(only(speech_kinds, integer("training.spec_augment.max_freq_width",
      spec_augment(&TrainingConfig::SpecAugment::max_freq_width), {non_negative()},
      "las: each frequency mask covers 0 to this many bins (uniform)")));
  k.push_back(only(speech_kinds, integer("training.spec_augment.time_masks",
      spec_augment(&TrainingConfig::SpecAugment::time_masks), {non_negative()},
      "las: masks over the frames")));
  k.push_back(only(speech_kinds, integer("training.spec_augment.max_time_width",
      spec_augment(&TrainingConfig::SpecAugment::max_time_width), {non_negative()},
      "las: each time mask covers 0 to this many frames (uniform)")));
  k.push_back(only(speech_kinds, number("training.spec_augment.max_time_fraction",
      spec_augment(&TrainingConfig::SpecAugment::max_time_fraction),
      {between(0, false, 1, false, "must be in [0, 1]")},
      "las: and at most this share of the utterance's frames")));
  k.push_back(choice("training.dtype", training(&TrainingConfig::dtype),
      "parameter type: `f32`, or `f64` (slow; for checks)"));
  k.push_back(choice("training.precision", training(&TrainingConfig::precision),
      "the training step's matrix products: `fp32`, or `bf16` (mixed precision: inputs of each "
      "product rounded to bfloat16, sums, weights, gradients and Adam in fp32; needs `dtype: "
      "f32` and a CPU where oneDNN has bf16 kernels, else an error). Validation decodes in "
      "fp32. `int8` is refused: it is a decoding precision (`heed translate --precision int8`)"));

  k.push_back(required(text("output", top(&TrainConfig::output),
      "the model directory to write")));
  return k;
}

}  // namespace

std::span<const ConfigKey> config_keys() {
  static const std::vector<ConfigKey> keys = make_keys();
  return keys;
}

std::vector<std::string> config_sections() {
  std::vector<std::string> out;
  for (const ConfigKey& k : config_keys()) {
    const std::string s = k.section();
    bool seen = false;
    for (const auto& o : out) seen = seen || o == s;
    if (!seen) out.push_back(s);
  }
  return out;
}

}  // namespace heed
