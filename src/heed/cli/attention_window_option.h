#pragma once
// --attention-window L,R of heed translate, heed transcribe and heed eval --speech
// (docs/MODELS.md#windowed-decoding): each decoding step after the first attends only to the
// positions from L before to R after the median of the previous step's attention.
#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <string>

#include "heed/base/error.h"
#include "heed/models/decoder.h"

namespace heed::cli {

// Adds the option to app, its text kept in text ("" = off); what names the positions
// (source positions, listener frames).
inline CLI::Option* add_attention_window_option(CLI::App& app, std::string& text,
                                                const std::string& what) {
  return app.add_option("--attention-window", text,
                        "L,R: windowed decoding, each step after the first attends only to the " +
                            what + " from L before to R after the median of the previous step's "
                            "attention (docs/MODELS.md#windowed-decoding); default off");
}

// "L,R", two integers >= 0, as the window; "" is off. Anything else: UsageError.
inline AttentionWindow parse_attention_window(const std::string& text) {
  if (text.empty()) return {};
  const auto comma = text.find(',');
  std::int64_t v[2] = {-1, -1};
  bool ok = comma != std::string::npos;
  for (int i = 0; ok && i < 2; ++i) {
    const std::string part = i == 0 ? text.substr(0, comma) : text.substr(comma + 1);
    const auto r = std::from_chars(part.data(), part.data() + part.size(), v[i]);
    ok = !part.empty() && r.ec == std::errc() && r.ptr == part.data() + part.size() &&
         v[i] >= 0 && v[i] <= 100000000;
  }
  if (!ok)
    throw UsageError("--attention-window: expected L,R, two integers from 0 (positions "
                     "before and after the previous step's median), got '" + text + "'");
  return {v[0], v[1]};
}

}  // namespace heed::cli
