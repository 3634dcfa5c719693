#pragma once
// Names of the choices a config or a command line offers, one table per enum, kept beside the
// enum it names. The config reader and the commands turn text into an enum here, once; the
// rest of heed compares enums, never strings.
//
//   enum class Fruit { apple, pear };
//   inline constexpr EnumName<Fruit> kFruitNames[] = {{Fruit::apple, "apple"}, {Fruit::pear, "pear"}};
//   constexpr std::span<const EnumName<Fruit>> enum_names(Fruit) { return kFruitNames; }
//
// A value may have several names (aliases); the first one listed is its canonical name,
// the one written back (enum_name) and offered in messages.
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>

#include "heed/base/error.h"

namespace heed {

template <typename E>
struct EnumName {
  E value;
  std::string_view name;
};

// "a | b | c": the canonical names, for messages and --help.
template <typename E>
std::string enum_choices() {
  std::string out;
  const auto names = enum_names(E{});
  for (std::size_t i = 0; i < names.size(); ++i) {
    bool alias = false;
    for (std::size_t j = 0; j < i; ++j) alias = alias || names[j].value == names[i].value;
    if (alias) continue;
    if (!out.empty()) out += " | ";
    out += names[i].name;
  }
  return out;
}

// The value named name, or false.
template <typename E>
bool enum_from_name(std::string_view name, E& out) {
  for (const auto& n : enum_names(E{}))
    if (n.name == name) {
      out = n.value;
      return true;
    }
  return false;
}

// The value named name; otherwise heed::Error "<what>: expected one of a | b, got 'x'".
template <typename E>
E parse_enum(std::string_view name, std::string_view what) {
  E out{};
  HEED_CHECK(enum_from_name(name, out), what, ": expected one of ", enum_choices<E>(), ", got '",
             name, "'");
  return out;
}

// The canonical name of value.
template <typename E>
std::string_view enum_name(E value) {
  for (const auto& n : enum_names(E{}))
    if (n.value == value) return n.name;
  return "?";
}

// Streams an enum with a name table by its canonical name (messages, logs).
template <typename E>
  requires std::is_enum_v<E> && requires(E e) { enum_names(e); }
std::ostream& operator<<(std::ostream& os, E value) {
  return os << enum_name(value);
}

}  // namespace heed
