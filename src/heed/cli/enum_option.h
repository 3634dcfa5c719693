#pragma once
// A command-line option whose value is one of an enum's names (base/enum_names.h): CLI11
// turns the text into the enum while parsing, so a command compares enums, never strings,
// --help lists the names and the default, and a wrong value is a usage error (exit 2) that lists the choices:
//   --metric: expected one of bleu | chrf | wer | g2p | aer, got 'meteor'
#include <CLI/CLI.hpp>

#include <string>
#include <type_traits>

#include "heed/base/enum_names.h"

namespace heed::cli {

template <typename E>
CLI::Option* add_enum_option(CLI::App& app, const std::string& flags, E& value,
                             const std::string& help, bool has_default = true) {
  // The validator rewrites the name into the enum's number, which CLI11 then stores.
  CLI::Validator by_name(
      [](std::string& input) -> std::string {
        E e{};
        if (!enum_from_name(input, e))
          return "expected one of " + enum_choices<E>() + ", got '" + input + "'";
        input = std::to_string(static_cast<std::underlying_type_t<E>>(e));
        return {};
      },
      "", "enum name");
  // The value at setup is the default, named in --help (unless the option is required).
  const std::string choices =
      enum_choices<E>() + (has_default ? "; default " + std::string(enum_name(value)) : "");
  return app.add_option(flags, value, help + " (" + choices + ")")
      ->transform(by_name)
      ->option_text("NAME");
}

}  // namespace heed::cli
