#include "heed/viz/svg_text.h"

#include <cstdint>
#include <cstdio>

namespace heed::viz {
namespace {

constexpr char kReplacement[] = "\xEF\xBF\xBD";  // U+FFFD

// Decodes one code point at text[i]; returns its byte length, or 0 when the bytes there
// are not well-formed UTF-8 (overlong forms, surrogates and values above U+10FFFF too).
std::size_t decode(std::string_view text, std::size_t i, char32_t& cp) {
  const auto b0 = static_cast<unsigned char>(text[i]);
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
  std::size_t n;
  char32_t min;
  if ((b0 & 0xE0) == 0xC0) {
    n = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    n = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    n = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto b = static_cast<unsigned char>(text[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

bool east_asian_wide(char32_t c) {
  return (c >= 0x1100 && c <= 0x115F) || (c >= 0x2E80 && c <= 0xA4CF) ||
         (c >= 0xAC00 && c <= 0xD7A3) || (c >= 0xF900 && c <= 0xFAFF) ||
         (c >= 0xFE30 && c <= 0xFE4F) || (c >= 0xFF00 && c <= 0xFF60) ||
         (c >= 0xFFE0 && c <= 0xFFE6) || (c >= 0x1F300 && c <= 0x1FAFF) || c >= 0x20000;
}

bool combining(char32_t c) {
  return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) ||
         (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x20D0 && c <= 0x20FF) ||
         (c >= 0xFE20 && c <= 0xFE2F) || c == 0x200B || c == 0x200C || c == 0x200D;
}

double em_width(char32_t c) {
  if (c < 0x80) {
    switch (c) {
      case 'i': case 'j': case 'l': case 'I': case '.': case ',': case ':': case ';':
      case '!': case '\'': case '|': case ' ': case '`':
        return 0.35;
      case 'f': case 't': case 'r': case '(': case ')': case '[': case ']': case '-':
        return 0.45;
      case 'm': case 'w': case 'M': case 'W': case '@': case '%':
        return 0.95;
      default:
        return (c >= 'A' && c <= 'Z') ? 0.72 : 0.62;
    }
  }
  if (combining(c)) return 0.0;
  if (east_asian_wide(c)) return 1.0;
  return 0.68;
}

bool is_space(char32_t c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == 0xA0 || c == 0x3000 ||
         (c >= 0x2000 && c <= 0x200A);
}

}  // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp;
    const std::size_t n = decode(text, i, cp);
    if (n == 0) {
      out += kReplacement;
      ++i;
      continue;
    }
    switch (cp) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 allows tab, LF, CR and nothing else below U+0020; U+FFFE/U+FFFF neither.
        if ((cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0xFFFE || cp == 0xFFFF) {
          out += kReplacement;
        } else {
          out.append(text.substr(i, n));
        }
    }
    i += n;
  }
  return out;
}

double text_width(std::string_view text, double font_size) {
  double em = 0.0;
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp;
    std::size_t n = decode(text, i, cp);
    if (n == 0) n = 1, cp = 0xFFFD;
    em += em_width(cp);
    i += n;
  }
  return em * font_size;
}

std::string label_text(std::string_view token, std::size_t max_code_points) {
  if (token.empty()) return "\xE2\x88\x85";  // ∅
  bool all_space = true;
  std::size_t count = 0, cut = token.size();
  for (std::size_t i = 0; i < token.size();) {
    char32_t cp;
    std::size_t n = decode(token, i, cp);
    if (n == 0) n = 1, cp = 0xFFFD;
    if (!is_space(cp)) all_space = false;
    if (count + 2 == max_code_points) cut = i + n;  // keeps max - 1 code points, then "…"
    ++count;
    i += n;
  }
  if (all_space) return "\xE2\x90\xA3";  // ␣
  if (count <= max_code_points || max_code_points == 0) return std::string(token);
  if (max_code_points == 1) return "\xE2\x80\xA6";
  // cut was set when count reached max - 1 code points.
  return std::string(token.substr(0, cut)) + "\xE2\x80\xA6";
}

std::string svg_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  std::string s = buf;
  if (s.size() > 2 && s.compare(s.size() - 2, 2, ".0") == 0) s.resize(s.size() - 2);
  if (s == "-0") s = "0";
  return s;
}

}  // namespace heed::viz
