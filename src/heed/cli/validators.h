#pragma once
// Option validators that say what was expected: CLI11's Range reports a word given for a
// number as "not in range", and NonNegativeNumber prints the largest double in full.
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdint>
#include <string>

namespace heed::cli {

// An integer in [lo, hi]: "expected an integer from 1 to 1000, got 'five'".
inline CLI::Validator int_range(std::int64_t lo, std::int64_t hi) {
  const std::string range = "from " + std::to_string(lo) + " to " + std::to_string(hi);
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        std::size_t used = 0;
        long long v = 0;
        try {
          v = std::stoll(s, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != s.size()) return "expected an integer " + range + ", got '" + s + "'";
        if (v < lo || v > hi) return "expected an integer " + range + ", got " + s;
        return {};
      },
      "INT " + range);
}

// A finite number in [lo, hi]: "expected a number from 0 to 1000, got 1e300".
inline CLI::Validator real_range(double lo, double hi) {
  auto text = [](double x) {
    std::string s = std::to_string(x);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  const std::string range = "from " + text(lo) + " to " + text(hi);
  return CLI::Validator(
      [=](std::string& s) -> std::string {
        std::size_t used = 0;
        double v = 0;
        try {
          v = std::stod(s, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used == 0 || used != s.size()) return "expected a number " + range + ", got '" + s + "'";
        if (!std::isfinite(v) || v < lo || v > hi) return "expected a number " + range + ", got " + s;
        return {};
      },
      "NUMBER " + range);
}

}  // namespace heed::cli
