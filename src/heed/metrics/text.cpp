#include "heed/metrics/text.h"

#include <algorithm>
#include <iterator>

namespace heed::metrics {

namespace {

// Length of a well-formed UTF-8 sequence starting at s[i], or 0 if it is not one.
std::size_t utf8_sequence(std::string_view s, std::size_t i, char32_t& out) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  std::size_t len;
  char32_t cp, min;
  if (c < 0x80) {
    out = c;
    return 1;
  } else if ((c & 0xE0) == 0xC0) {
    len = 2, cp = c & 0x1F, min = 0x80;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3, cp = c & 0x0F, min = 0x800;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4, cp = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are invalid, as in Python.
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  out = cp;
  return len;
}

void append_utf8(std::string& out, char32_t c) {
  if (c >= 0xDC80 && c <= 0xDCFF) {  // an escaped invalid byte goes back as that byte
    out.push_back(static_cast<char>(c - 0xDC00));
  } else if (c < 0x80) {
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

// Walks the code points of s, calling f(code_point, byte_offset, byte_length).
template <typename F>
void for_each_code_point(std::string_view s, F&& f) {
  std::size_t i = 0;
  while (i < s.size()) {
    char32_t c;
    std::size_t len = utf8_sequence(s, i, c);
    if (len == 0) {
      c = 0xDC00 + static_cast<unsigned char>(s[i]);
      len = 1;
    }
    f(c, i, len);
    i += len;
  }
}

char32_t lower_simple(char32_t c);

// Letters with case, approximately (for the final-sigma rule).
bool is_cased(char32_t c) {
  if (lower_simple(c) != c) return true;
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7) || (c >= 0x370 && c <= 0x3FF) ||
         (c >= 0x400 && c <= 0x52F) || (c >= 0x1E00 && c <= 0x1EFF);
}

struct LowerRun {
  char32_t first, last;
  int delta, stride;
};

constexpr LowerRun kLowerRuns[] = {
#include "heed/metrics/lowercase_table.inc"
};

// Simple (one to one) lowercase mapping; U+0130 and final sigma are handled by the caller.
char32_t lower_simple(char32_t c) {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') ? c + 32 : c;
  // The last run starting at or before c.
  const LowerRun* lo = std::begin(kLowerRuns);
  const LowerRun* hi = std::end(kLowerRuns);
  const LowerRun* it = std::upper_bound(lo, hi, c, [](char32_t x, const LowerRun& r) { return x < r.first; });
  if (it == lo) return c;
  const LowerRun& r = *(it - 1);
  if (c > r.last || (c - r.first) % static_cast<char32_t>(r.stride) != 0) return c;
  return static_cast<char32_t>(static_cast<int>(c) + r.delta);
}

}  // namespace

std::u32string utf8_decode(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  for_each_code_point(s, [&](char32_t c, std::size_t, std::size_t) { out.push_back(c); });
  return out;
}

std::string utf8_encode(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t c : s) append_utf8(out, c);
  return out;
}

bool is_python_space(char32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

std::vector<std::string> split_whitespace(std::string_view s) {
  std::vector<std::string> out;
  std::size_t start = std::string_view::npos;
  for_each_code_point(s, [&](char32_t c, std::size_t at, std::size_t) {
    if (is_python_space(c)) {
      if (start != std::string_view::npos) out.emplace_back(s.substr(start, at - start));
      start = std::string_view::npos;
    } else if (start == std::string_view::npos) {
      start = at;
    }
  });
  if (start != std::string_view::npos) out.emplace_back(s.substr(start));
  return out;
}

std::string rstrip(std::string_view s) {
  std::size_t end = 0;
  for_each_code_point(s, [&](char32_t c, std::size_t at, std::size_t len) {
    if (!is_python_space(c)) end = at + len;
  });
  return std::string(s.substr(0, end));
}

std::string remove_whitespace(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for_each_code_point(s, [&](char32_t c, std::size_t at, std::size_t len) {
    if (!is_python_space(c)) out.append(s.substr(at, len));
  });
  return out;
}

std::string lowercase(std::string_view s) {
  std::u32string cps = utf8_decode(s);
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < cps.size(); ++i) {
    char32_t c = cps[i];
    if (c == 0x130) {  // İ lowercases to i + combining dot above, as in Python
      out += "i\xCC\x87";
      continue;
    }
    if (c == 0x3A3) {  // Σ: final form at the end of a word
      bool after_letter = i > 0 && is_cased(cps[i - 1]);
      bool before_letter = i + 1 < cps.size() && is_cased(cps[i + 1]);
      append_utf8(out, after_letter && !before_letter ? 0x3C2 : 0x3C3);
      continue;
    }
    append_utf8(out, lower_simple(c));
  }
  return out;
}

std::vector<std::string> split_on(std::string_view s, char separator) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t at = s.find(separator, start);
    if (at == std::string_view::npos) {
      out.emplace_back(s.substr(start));
      return out;
    }
    out.emplace_back(s.substr(start, at - start));
    start = at + 1;
  }
}

}  // namespace heed::metrics
