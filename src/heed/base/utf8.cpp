#include "heed/base/utf8.h"

#include <algorithm>
#include <iterator>

#include "heed/base/error.h"

namespace heed {
namespace {

// Length of the well-formed sequence starting at text[i], or 0 when it is malformed.
// Follows the table of well-formed byte sequences in the Unicode standard (ch. 3, D92),
// which is also what Python's decoder accepts.
std::size_t sequence_length(std::string_view text, std::size_t i) {
  auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char b0 = byte(i);
  if (b0 < 0x80) return 1;
  std::size_t n;
  unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    n = 2;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    n = 3;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong 3-byte forms
    if (b0 == 0xED) hi = 0x9F;  // no UTF-16 surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    n = 4;
    if (b0 == 0xF0) lo = 0x90;  // no overlong 4-byte forms
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return 0;  // continuation byte, overlong 2-byte lead (C0, C1) or F5..FF
  }
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xBF) return 0;
  return n;
}

char32_t decode_at(std::string_view text, std::size_t i, std::size_t n) {
  auto byte = [&](std::size_t k) { return static_cast<char32_t>(static_cast<unsigned char>(text[k])); };
  switch (n) {
    case 1: return byte(i);
    case 2: return ((byte(i) & 0x1F) << 6) | (byte(i + 1) & 0x3F);
    case 3: return ((byte(i) & 0x0F) << 12) | ((byte(i + 1) & 0x3F) << 6) | (byte(i + 2) & 0x3F);
    default:
      return ((byte(i) & 0x07) << 18) | ((byte(i + 1) & 0x3F) << 12) |
             ((byte(i + 2) & 0x3F) << 6) | (byte(i + 3) & 0x3F);
  }
}

std::size_t checked_length(std::string_view text, std::size_t i) {
  std::size_t n = sequence_length(text, i);
  HEED_CHECK(n > 0, "invalid UTF-8 at byte ", i + 1);
  return n;
}

// Encodes any value below 2^21 without checking it is a scalar value.
void append_unchecked(std::string& out, char32_t c) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

void append_escaped(std::string& out, char32_t c) {
  if (c >= 0xDC80 && c <= 0xDCFF)  // an escaped invalid byte goes back as that byte
    out.push_back(static_cast<char>(c - 0xDC00));
  else
    append_unchecked(out, c);
}

struct LowerRun {
  char32_t first, last;
  int delta, stride;
};

constexpr LowerRun kLowerRuns[] = {
#include "heed/base/lowercase_table.inc"
};

// Letters with case, approximately (for the final-sigma rule).
bool is_cased(char32_t c) {
  if (to_lower(c) != c) return true;
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7) || (c >= 0x370 && c <= 0x3FF) ||
         (c >= 0x400 && c <= 0x52F) || (c >= 0x1E00 && c <= 0x1EFF);
}

}  // namespace

std::size_t find_invalid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    // Fast path over ASCII runs.
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    std::size_t n = sequence_length(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

std::u32string decode_utf8(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::size_t n = checked_length(text, i);
    out.push_back(decode_at(text, i, n));
    i += n;
  }
  return out;
}

void append_utf8(std::string& out, char32_t c) {
  HEED_CHECK(c <= 0x10FFFF && !(c >= 0xD800 && c <= 0xDFFF), "not a Unicode scalar value: ",
             static_cast<unsigned long>(c));
  append_unchecked(out, c);
}

std::string encode_utf8(std::u32string_view code_points) {
  std::string out;
  out.reserve(code_points.size());
  for (char32_t c : code_points) append_utf8(out, c);
  return out;
}

std::vector<std::string> split_code_points(std::string_view text) {
  std::vector<std::string> out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    std::size_t n = checked_length(text, i);
    out.emplace_back(text.substr(i, n));
    i += n;
  }
  return out;
}

std::size_t decode_utf8_escaped_at(std::string_view text, std::size_t at, char32_t& code_point) {
  std::size_t n = sequence_length(text, at);
  if (n == 0) {
    code_point = 0xDC00 + static_cast<unsigned char>(text[at]);
    return 1;
  }
  code_point = decode_at(text, at, n);
  return n;
}

std::u32string decode_utf8_escaped(std::string_view text) {
  std::u32string out;
  out.reserve(text.size());
  char32_t c;
  for (std::size_t i = 0; i < text.size();) {
    i += decode_utf8_escaped_at(text, i, c);
    out.push_back(c);
  }
  return out;
}

std::string encode_utf8_escaped(std::u32string_view code_points) {
  std::string out;
  out.reserve(code_points.size());
  for (char32_t c : code_points) append_escaped(out, c);
  return out;
}

char32_t to_lower(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  // The table leaves out U+0130, whose full mapping is two code points (see below); its
  // simple mapping (UnicodeData.txt) is plain 'i'.
  if (c == 0x130) return 'i';
  // The last run starting at or before c.
  const LowerRun* lo = std::begin(kLowerRuns);
  const LowerRun* hi = std::end(kLowerRuns);
  const LowerRun* it =
      std::upper_bound(lo, hi, c, [](char32_t x, const LowerRun& r) { return x < r.first; });
  if (it == lo) return c;
  const LowerRun& r = *(it - 1);
  if (c > r.last || (c - r.first) % static_cast<char32_t>(r.stride) != 0) return c;
  return static_cast<char32_t>(static_cast<int>(c) + r.delta);
}

std::string to_lower(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  char32_t previous = 0;  // the code point before the current one, as in the input
  for (std::size_t i = 0; i < text.size();) {
    unsigned char b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      out.push_back(static_cast<char>((b >= 'A' && b <= 'Z') ? b + 32 : b));
      previous = b;
      ++i;
      continue;
    }
    char32_t c;
    std::size_t n = decode_utf8_escaped_at(text, i, c);
    if (c == 0x130) {  // İ lowercases to i + combining dot above, as in Python
      out += "i\xCC\x87";
    } else if (c == 0x3A3) {  // Σ: final form at the end of a word
      char32_t next = 0;
      if (i + n < text.size()) decode_utf8_escaped_at(text, i + n, next);
      bool after_letter = i > 0 && is_cased(previous);
      bool before_letter = i + n < text.size() && is_cased(next);
      append_unchecked(out, after_letter && !before_letter ? 0x3C2 : 0x3C3);
    } else {
      append_escaped(out, to_lower(c));
    }
    previous = c;
    i += n;
  }
  return out;
}

}  // namespace heed
