#include "heed/data/utf8.h"

#include "heed/base/error.h"

namespace heed {
namespace {

// Length of the well-formed sequence starting at text[i], or 0 when it is malformed.
// Follows the table of well-formed byte sequences in the Unicode standard (ch. 3, D92).
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

char32_t to_lower(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  // Latin-1: À..Þ except × (U+00D7).
  if (c >= 0xC0 && c <= 0xDE && c != 0xD7) return c + 32;
  if (c == 0x130) return 'i';    // İ -> i (its pair slot holds dotless ı)
  // Latin Extended-A: pairs (even capital, odd small) in U+0100..U+0137 and
  // U+014A..U+0177; (odd capital, even small) in U+0139..U+0148 and U+0179..U+017E.
  if ((c >= 0x100 && c <= 0x137) || (c >= 0x14A && c <= 0x177)) return c | 1;
  if ((c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E)) return (c & 1) ? c + 1 : c;
  if (c == 0x178) return 0xFF;   // Ÿ -> ÿ
  if (c == 0x1E9E) return 0xDF;  // ẞ -> ß
  // Greek capitals Α..Ω (no U+03A2) and Cyrillic А..Я, Ѐ..Џ.
  if (c >= 0x391 && c <= 0x3A9 && c != 0x3A2) return c + 32;
  if (c >= 0x410 && c <= 0x42F) return c + 32;
  if (c >= 0x400 && c <= 0x40F) return c + 80;
  return c;
}

std::string to_lower_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    unsigned char b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      out.push_back(static_cast<char>((b >= 'A' && b <= 'Z') ? b + 32 : b));
      ++i;
      continue;
    }
    std::size_t n = checked_length(text, i);
    append_utf8(out, to_lower(decode_at(text, i, n)));
    i += n;
  }
  return out;
}

}  // namespace heed
