#pragma once
// Every key of a training config, declared once (docs/CONFIG.md): its dotted name, type, the
// field of TrainConfig it sets (its default is that field's default), its range, the model
// kinds that read it and its help text. The reader, its checks and messages, to_yaml and
// the key tables of docs/CONFIG.md (config_docs.h) all walk this one table, so a key cannot
// be read but not written, or written but not documented.
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "heed/config/train_config.h"

namespace heed {

enum class KeyType { string, integer, unsigned_integer, number, boolean, choice };

// A key's value, typed; a choice holds its canonical name ("" = unset, the kind's default).
using KeyValue = std::variant<std::string, std::int64_t, std::uint64_t, double, bool>;

// An allowed interval of a numeric key, with the message given when a value lies outside
// it ("must be at least 1"). or_zero: 0 is allowed too (0 = "off" or "no limit").
struct KeyRange {
  double lo, hi;
  bool lo_open, hi_open;
  bool or_zero;
  std::string message;

  bool contains(double v) const;
  std::string text() const;  // "≥ 1", "[0, 1)", "0 or [28, 4096]"
};

// The model kinds that read a key, one bit per ModelKind.
using KindSet = std::uint32_t;
inline constexpr KindSet kAllKinds = ~KindSet{0};
KindSet kinds(std::initializer_list<ModelKind> list);
// The kinds whose traits (models/model_config.h: family, attention decoder) satisfy holds.
KindSet kinds_where(bool (*holds)(const ModelKindTraits&));
bool accepts(KindSet set, ModelKind kind);
std::string kind_list(KindSet set);  // "ram, fc, cnn"

struct ConfigKey {
  std::string name;  // dotted, e.g. "training.lr"
  KeyType type = KeyType::string;
  std::function<KeyValue(const TrainConfig&)> get;
  // Sets the field; false when a choice's text names none of its values.
  std::function<bool(TrainConfig&, const KeyValue&)> set;
  std::string choices;  // choice: "a | b | c" (canonical names)
  bool unset_allowed = false;  // choice: "" means the kind's default
  std::vector<KeyRange> ranges;
  KindSet kinds = kAllKinds;
  std::string default_text;  // overrides the struct's default in the docs ("required")
  std::string help;

  std::string section() const;  // "training", "data.source", "" for the top level
  std::string leaf() const;     // "lr"
};

// Every key, in the order to_yaml writes them (and the docs list them).
std::span<const ConfigKey> config_keys();

// The config sections in the order of their first key ("", "data", "data.generate", ...).
std::vector<std::string> config_sections();

// The value as YAML text would spell it (docs, messages): "0.001", "true", "adam", "\"\"".
std::string key_value_text(const KeyValue& value);

}  // namespace heed
