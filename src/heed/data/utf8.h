#pragma once
// UTF-8 helpers for the data layer: strict validation (the text readers report the first
// bad byte), splitting into code points, and a small lowercase mapping.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace heed {

// Byte offset of the first byte that is not part of a well-formed UTF-8 sequence
// (overlong forms, surrogates, code points above U+10FFFF and truncated sequences are
// rejected), or std::string_view::npos when the whole text is valid.
std::size_t find_invalid_utf8(std::string_view text);
inline bool is_valid_utf8(std::string_view text) {
  return find_invalid_utf8(text) == std::string_view::npos;
}

// Decodes valid UTF-8 into code points (throws heed::Error on invalid input).
std::u32string decode_utf8(std::string_view text);
// Appends the UTF-8 encoding of one code point.
void append_utf8(std::string& out, char32_t code_point);
std::string encode_utf8(std::u32string_view code_points);

// One string per code point, in order (throws heed::Error on invalid input).
std::vector<std::string> split_code_points(std::string_view text);

// Lowercases ASCII, Latin-1, Latin Extended-A, Greek and basic Cyrillic capitals; every
// other code point is left as it is. Enough for English, German, French and the like
// without pulling in ICU; U+1E9E (capital sharp s) maps to U+00DF.
char32_t to_lower(char32_t code_point);
std::string to_lower_utf8(std::string_view text);

}  // namespace heed
