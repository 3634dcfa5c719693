#pragma once
// The --alignment and --alignment-words options that `heed translate` and `heed align` share
// (translate/alignment.h; docs/DECODING.md#alignments). A bad value is a usage error (exit 2)
// that says what was expected.
#include <CLI/CLI.hpp>

#include <string>

#include "heed/base/error.h"
#include "heed/translate/alignment.h"

namespace heed::cli {

struct AlignmentFlags {
  std::string mode;    // empty: not given
  bool words = false;
  AlignmentOptions options() const {
    AlignmentOptions o = parse_alignment_mode(mode.empty() ? "hard" : mode);
    o.words = words;
    return o;
  }
};

inline CLI::Option* add_alignment_options(CLI::App& app, AlignmentFlags& flags,
                                          const std::string& help) {
  CLI::Validator mode(
      [](std::string& s) -> std::string {
        try {
          parse_alignment_mode(s);
        } catch (const Error& e) {
          return e.what();
        }
        return {};
      },
      "hard|soft|T");
  auto* option = app.add_option("--alignment", flags.mode,
                                help + ": hard (each output piece linked to the source piece it "
                                       "attends to most, Pharaoh i-j), a threshold T in (0, 1] "
                                       "(every link of weight >= T), or soft (the attention rows)")
                     ->check(mode);
  app.add_flag("--alignment-words", flags.words,
               "alignment positions count words, not subword pieces (links merged)");
  return option;
}

}  // namespace heed::cli
