#include "heed/metrics/tokenizer_13a.h"

#include <vector>

#include "heed/metrics/text.h"

namespace heed::metrics {

namespace {

// Python's str.replace: non-overlapping, left to right.
std::string replace_all(const std::string& s, std::string_view from, std::string_view to) {
  std::string out;
  out.reserve(s.size());
  std::size_t start = 0;
  while (true) {
    std::size_t at = s.find(from, start);
    if (at == std::string::npos) break;
    out.append(s, start, at - start);
    out.append(to);
    start = at + from.size();
  }
  out.append(s, start, std::string::npos);
  return out;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The class [\{-\~\[-\`\ -\&\(-\+\:-\@\/] of tokenizer_re.py: ASCII punctuation and symbols
// except the apostrophe, comma, hyphen and period (those have the digit rules below).
bool is_split_symbol(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  return (u >= 0x7B && u <= 0x7E) || (u >= 0x5B && u <= 0x60) || (u >= 0x20 && u <= 0x26) ||
         (u >= 0x28 && u <= 0x2B) || (u >= 0x3A && u <= 0x40) || u == '/';
}

bool is_period_or_comma(char c) { return c == '.' || c == ','; }

// Each rule below is one re.sub of tokenizer_re.py, scanning left to right over
// non-overlapping matches. Working on UTF-8 bytes gives the same result as Python on code
// points: every rule's special characters are ASCII, and a multi-byte character only ever
// plays the part of "not a digit", whose bytes are all non-digits.

// ([^0-9])([\.,]) -> \1 \2 (space before and after a period/comma not preceded by a digit)
std::string split_after_non_digit(const std::string& s) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  std::size_t i = 0;
  while (i < s.size()) {
    if (i + 1 < s.size() && !is_digit(s[i]) && is_period_or_comma(s[i + 1])) {
      out += s[i];
      out += ' ';
      out += s[i + 1];
      out += ' ';
      i += 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// ([\.,])([^0-9]) -> " \1 \2" (a period/comma not followed by a digit)
std::string split_before_non_digit(const std::string& s) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  std::size_t i = 0;
  while (i < s.size()) {
    if (i + 1 < s.size() && is_period_or_comma(s[i]) && !is_digit(s[i + 1])) {
      out += ' ';
      out += s[i];
      out += ' ';
      out += s[i + 1];
      i += 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

// ([0-9])(-) -> \1 \2 (a dash after a digit)
std::string split_dash_after_digit(const std::string& s) {
  std::string out;
  out.reserve(s.size() + s.size() / 4);
  std::size_t i = 0;
  while (i < s.size()) {
    if (i + 1 < s.size() && is_digit(s[i]) && s[i + 1] == '-') {
      out += s[i];
      out += " - ";
      i += 2;
    } else {
      out += s[i++];
    }
  }
  return out;
}

}  // namespace

std::string tokenize_13a(std::string_view line) {
  // Language-independent part (tokenizer_13a.py).
  std::string s(line);
  s = replace_all(s, "<skipped>", "");
  s = replace_all(s, "-\n", "");
  s = replace_all(s, "\n", " ");
  s = replace_all(s, "&quot;", "\"");
  s = replace_all(s, "&amp;", "&");
  s = replace_all(s, "&lt;", "<");
  s = replace_all(s, "&gt;", ">");

  // Language-dependent part (tokenizer_re.py), on " " + s + " ".
  std::string padded;
  padded.reserve(s.size() * 2 + 2);
  padded += ' ';
  for (char c : s) {
    if (is_split_symbol(c)) {
      padded += ' ';
      padded += c;
      padded += ' ';
    } else {
      padded += c;
    }
  }
  padded += ' ';
  padded = split_dash_after_digit(split_before_non_digit(split_after_non_digit(padded)));

  // ' '.join(line.strip().split())
  std::vector<std::string> tokens = split_whitespace(padded);
  std::string out;
  out.reserve(padded.size());
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (i) out += ' ';
    out += tokens[i];
  }
  return out;
}

}  // namespace heed::metrics
