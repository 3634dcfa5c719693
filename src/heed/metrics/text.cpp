#include "heed/metrics/text.h"

#include "heed/base/utf8.h"

namespace heed::metrics {

namespace {

// Walks the code points of s (invalid bytes escaped), calling f(code_point, byte_offset,
// byte_length).
template <typename F>
void for_each_code_point(std::string_view s, F&& f) {
  char32_t c;
  for (std::size_t i = 0; i < s.size();) {
    std::size_t len = decode_utf8_escaped_at(s, i, c);
    f(c, i, len);
    i += len;
  }
}

}  // namespace

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
