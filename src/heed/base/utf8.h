#pragma once
// UTF-8 for every layer: validation with byte positions, decoding and encoding, and the one
// lowercase mapping. Training data (--lowercase) and scoring (heed score --lowercase) must
// lowercase identically, or a model's output is compared with references mapped another
// way; both use to_lower here, which is Python's str.lower() because the reference metric
// implementations (sacreBLEU) are Python.
//
// Two decoders: the strict one is for text already validated (the readers report the first
// bad byte with find_invalid_utf8) and throws otherwise; the escaping one never fails and
// keeps each invalid byte as a lone code point U+DC80..U+DCFF, Python's "surrogateescape",
// so that metrics accept any byte string and encode it back unchanged.
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

// Strict: decodes valid UTF-8 (throws heed::Error on invalid input); encodes Unicode scalar
// values (throws on surrogates and values above U+10FFFF).
std::u32string decode_utf8(std::string_view text);
void append_utf8(std::string& out, char32_t code_point);
std::string encode_utf8(std::u32string_view code_points);
// One string per code point, in order (throws heed::Error on invalid input).
std::vector<std::string> split_code_points(std::string_view text);

// Escaping (lossless for any byte string): decodes the code point starting at byte `at`
// (< text.size()) into code_point and returns its length in bytes; an invalid byte b
// decodes as U+DC00 + b, length 1. Encoding turns U+DC80..U+DCFF back into those bytes.
std::size_t decode_utf8_escaped_at(std::string_view text, std::size_t at, char32_t& code_point);
std::u32string decode_utf8_escaped(std::string_view text);
std::string encode_utf8_escaped(std::u32string_view code_points);

// Python's str.lower() on the Unicode 14 tables. The code point version is the simple
// (one to one) mapping, so U+0130 gives 'i'. The string version is the full one: U+0130
// becomes "i" + U+0307, and a capital sigma after a cased letter and not before one becomes
// final sigma U+03C2 (Python also looks past case-ignorable characters such as apostrophes
// there; this does not). Invalid bytes pass through unchanged.
char32_t to_lower(char32_t code_point);
std::string to_lower(std::string_view text);

}  // namespace heed
