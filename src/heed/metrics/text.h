#pragma once
// Text handling shared by the metrics, written to agree with Python 3 string semantics,
// because the reference implementations (sacreBLEU) are Python: str.split() splits on
// Unicode whitespace, str.lower() lowercases beyond ASCII, n-grams of characters count
// code points, not bytes. Invalid UTF-8 bytes are kept as lone code points U+DC80..U+DCFF
// (Python's "surrogateescape"), so no input is rejected and none is merged.
#include <string>
#include <string_view>
#include <vector>

namespace heed::metrics {

// UTF-8 -> code points and back (lossless for any byte string).
std::u32string utf8_decode(std::string_view s);
std::string utf8_encode(std::u32string_view s);

// Python's str.isspace() for one code point.
bool is_python_space(char32_t c);

// Python's s.split(): runs of whitespace separate, no empty fields.
std::vector<std::string> split_whitespace(std::string_view s);
// Python's s.rstrip() and "".join(s.split()).
std::string rstrip(std::string_view s);
std::string remove_whitespace(std::string_view s);

// Python's str.lower(): Unicode 14 lowercase mappings, U+0130 to "i" + U+0307, and Greek
// final sigma (a capital sigma after a letter and not before one becomes U+03C2; Python
// also skips case-ignorable characters such as apostrophes there, which this does not).
std::string lowercase(std::string_view s);

// Splits on one separator character keeping empty fields (a reference line holding
// several references separated by tabs).
std::vector<std::string> split_on(std::string_view s, char separator);

}  // namespace heed::metrics
