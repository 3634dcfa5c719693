#include "heed/base/utf8.h"

#include <gtest/gtest.h>

#include "heed/base/error.h"

namespace heed {
namespace {

// Strict decoding, encoding and validation.

TEST(Utf8, AcceptsOneToFourByteSequences) {
  std::string text = "a\xC3\xA4\xE2\x82\xAC\xF0\x9F\x98\x80";  // a ä € 😀
  EXPECT_TRUE(is_valid_utf8(text));
  EXPECT_EQ(decode_utf8(text), (std::u32string{U'a', U'ä', U'€', U'\U0001F600'}));
  EXPECT_EQ(split_code_points(text),
            (std::vector<std::string>{"a", "\xC3\xA4", "\xE2\x82\xAC", "\xF0\x9F\x98\x80"}));
  EXPECT_EQ(encode_utf8(decode_utf8(text)), text);
  // Valid text decodes the same way escaping or not.
  EXPECT_EQ(decode_utf8_escaped(text), decode_utf8(text));
  EXPECT_EQ(encode_utf8_escaped(decode_utf8(text)), text);
}

TEST(Utf8, AcceptsBoundaryCodePoints) {
  for (char32_t c : {U'\u0000', U'\u007F', U'\u0080', U'\u07FF', U'\u0800', U'\uD7FF', U'\uE000',
                     U'\uFFFF', U'\U00010000', U'\U0010FFFF'}) {
    std::string s;
    append_utf8(s, c);
    EXPECT_TRUE(is_valid_utf8(s)) << static_cast<unsigned long>(c);
    EXPECT_EQ(decode_utf8(s), std::u32string(1, c));
    EXPECT_EQ(decode_utf8_escaped(s), std::u32string(1, c));
  }
}

TEST(Utf8, ReportsTheFirstBadByte) {
  struct Case {
    std::string text;
    std::size_t bad;
  };
  const Case cases[] = {
      {"ab\x80", 2},                 // lone continuation byte
      {"\xC0\xAF", 0},               // overlong '/'
      {"\xC1\xBF", 0},               // overlong 2-byte form
      {"x\xE0\x80\xAF", 1},          // overlong 3-byte form
      {"\xF0\x80\x80\xAF", 0},       // overlong 4-byte form
      {"\xED\xA0\x80", 0},           // UTF-16 surrogate U+D800
      {"\xF4\x90\x80\x80", 0},       // above U+10FFFF
      {"\xF5\x80\x80\x80", 0},       // invalid lead byte
      {"\xFF", 0},
      {"ok\xC3", 2},                 // truncated 2-byte sequence at the end
      {"\xE2\x82", 0},               // truncated 3-byte sequence
      {"\xF0\x9F\x98", 0},           // truncated 4-byte sequence
      {"\xE2\x82x", 0},              // truncated by an ASCII byte
      {"\xC3\xA4\xC3", 2},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(find_invalid_utf8(c.text), c.bad) << c.text;
    EXPECT_THROW(decode_utf8(c.text), Error);
    EXPECT_THROW(split_code_points(c.text), Error);
    // The escaping decoder accepts it, escapes the bad byte, and gives the bytes back.
    std::u32string escaped = decode_utf8_escaped(c.text);
    char32_t at_bad = 0;
    EXPECT_EQ(decode_utf8_escaped_at(c.text, c.bad, at_bad), 1u);
    EXPECT_EQ(at_bad, char32_t(0xDC00 + static_cast<unsigned char>(c.text[c.bad])));
    EXPECT_EQ(encode_utf8_escaped(escaped), c.text);
  }
  EXPECT_EQ(find_invalid_utf8(""), std::string_view::npos);
}

TEST(Utf8, RejectsNonScalarValuesWhenEncoding) {
  std::string s;
  EXPECT_THROW(append_utf8(s, 0xD800), Error);
  EXPECT_THROW(append_utf8(s, 0x110000), Error);
}

// Escaping decoding, as Python's errors="surrogateescape".

TEST(Utf8, EscapedRoundTripKeepsInvalidBytes) {
  std::string s = "Gr\xC3\xBC\xC3\x9F" "e \xFF\x80 \xE2\x82";  // "Grüße", then invalid bytes
  std::u32string cps = decode_utf8_escaped(s);
  EXPECT_EQ(cps.substr(0, 5), U"Grüße");
  EXPECT_EQ(cps[6], char32_t(0xDCFF));  // surrogateescape, as Python
  EXPECT_EQ(cps[7], char32_t(0xDC80));
  EXPECT_EQ(cps.substr(9), (std::u32string{0xDCE2, 0xDC82}));  // each byte of a truncated one
  EXPECT_EQ(encode_utf8_escaped(cps), s);
}

// Lowercasing: Python's str.lower(), one function for training data and metrics.

TEST(Utf8, LowercasesLatinGreekCyrillic) {
  EXPECT_EQ(to_lower("Hello WORLD 123!"), "hello world 123!");
  EXPECT_EQ(to_lower("ÄÖÜ ẞ straße ÀÉÎÕØÞ × Ÿ"), "äöü ß straße àéîõøþ × ÿ");
  EXPECT_EQ(to_lower("ŁÓDŹ ČŠŽ ŒUVRE"), "łódź čšž œuvre");
  EXPECT_EQ(to_lower("ΑΘΗΝΑ МОСКВА Ё"), "αθηνα москва ё");
  EXPECT_EQ(to_lower("日本語 😀"), "日本語 😀");  // unchanged
}

TEST(Utf8, LowercaseLikePython) {
  EXPECT_EQ(to_lower("Hello WORLD 42!"), "hello world 42!");
  EXPECT_EQ(to_lower("ÄÖÜ ẞ Straße"), "äöü ß straße");
  EXPECT_EQ(to_lower("ÉCOLE ŁÓDŹ ŒUVRE Ÿ"), "école łódź œuvre ÿ");
  EXPECT_EQ(to_lower("ПРИВЕТ Ёж"), "привет ёж");
  EXPECT_EQ(to_lower("ΟΔΥΣΣΕΥΣ Σ"), "οδυσσευς σ");  // final sigma only after a letter
  EXPECT_EQ(to_lower("ΣΑΣ. ΑΣ1"), "σας. ας1");
  EXPECT_EQ(to_lower("İ"), "i\xCC\x87");  // two code points in the full mapping
  EXPECT_EQ(to_lower("ŁÓDŹ İ"), "łódź i\xCC\x87");
  EXPECT_EQ(to_lower("ĲĹĽŊŽ"), "ĳĺľŋž");
}

TEST(Utf8, LowercaseCoversTheWholeUnicodeTable) {
  // Scripts and blocks past Latin, Greek and Cyrillic (Python 3.11 gives the same).
  EXPECT_EQ(to_lower("ԱՐՄԵՆԻԱ"), "արմենիա");                // Armenian
  EXPECT_EQ(to_lower("ᲐᲑᲒ Ⴀ"), "აბგ ⴀ");                    // Georgian Mtavruli, Asomtavruli
  EXPECT_EQ(to_lower("ＡＢＣ Ⅻ Ⓐ"), "ａｂｃ ⅻ ⓐ");            // fullwidth, Roman numeral, circled
  // Titlecase Dz, ẞ, and the Ohm, Kelvin and Angstrom signs.
  EXPECT_EQ(to_lower("ǅ Ǆ ẞ \u2126 \u212A \u212B"), "ǆ ǆ ß ω k å");
  EXPECT_EQ(to_lower("\U00010400\U000104B0\U0001E900"), "\U00010428\U000104D8\U0001E922");
  EXPECT_EQ(to_lower("Ꭰ ꭰ"), "ꭰ ꭰ");                        // Cherokee
}

TEST(Utf8, LowercaseCodePointIsTheSimpleMapping) {
  EXPECT_EQ(to_lower(U'A'), U'a');
  EXPECT_EQ(to_lower(U'İ'), U'i');
  EXPECT_EQ(to_lower(U'Σ'), U'σ');
  EXPECT_EQ(to_lower(U'ẞ'), U'ß');
  EXPECT_EQ(to_lower(U'\U00010400'), U'\U00010428');
  EXPECT_EQ(to_lower(U'ß'), U'ß');
  EXPECT_EQ(to_lower(U'1'), U'1');
  EXPECT_EQ(to_lower(char32_t(0xDCFF)), char32_t(0xDCFF));
}

TEST(Utf8, LowercaseKeepsInvalidBytes) {
  EXPECT_EQ(to_lower("A\xFF" "B\xC3"), "a\xFF" "b\xC3");
  EXPECT_EQ(to_lower("\xCE\xA3\xFF"), "\xCF\x83\xFF");  // Σ then a bad byte: not final
  EXPECT_EQ(to_lower(""), "");
}

}  // namespace
}  // namespace heed
