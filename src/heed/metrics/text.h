#pragma once
// Text handling shared by the metrics, written to agree with Python 3 string semantics,
// because the reference implementations (sacreBLEU) are Python: str.split() splits on
// Unicode whitespace, n-grams of characters count code points, not bytes. Invalid UTF-8
// bytes are kept as lone code points U+DC80..U+DCFF (Python's "surrogateescape", see
// decode_utf8_escaped in heed/base/utf8.h), so no input is rejected and none is merged.
// Lowercasing is heed::to_lower (heed/base/utf8.h), the same function training uses.
#include <string>
#include <string_view>
#include <vector>

namespace heed::metrics {

// Python's str.isspace() for one code point.
bool is_python_space(char32_t c);

// Python's s.split(): runs of whitespace separate, no empty fields.
std::vector<std::string> split_whitespace(std::string_view s);
// Python's s.rstrip() and "".join(s.split()).
std::string rstrip(std::string_view s);
std::string remove_whitespace(std::string_view s);

// Splits on one separator character keeping empty fields (a reference line holding
// several references separated by tabs).
std::vector<std::string> split_on(std::string_view s, char separator);

}  // namespace heed::metrics
