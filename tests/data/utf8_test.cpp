#include "heed/data/utf8.h"

#include <gtest/gtest.h>

#include "heed/base/error.h"

namespace heed {
namespace {

TEST(Utf8, AcceptsOneToFourByteSequences) {
  std::string text = "a\xC3\xA4\xE2\x82\xAC\xF0\x9F\x98\x80";  // a ä € 😀
  EXPECT_TRUE(is_valid_utf8(text));
  EXPECT_EQ(decode_utf8(text), (std::u32string{U'a', U'ä', U'€', U'\U0001F600'}));
  EXPECT_EQ(split_code_points(text),
            (std::vector<std::string>{"a", "\xC3\xA4", "\xE2\x82\xAC", "\xF0\x9F\x98\x80"}));
  EXPECT_EQ(encode_utf8(decode_utf8(text)), text);
}

TEST(Utf8, AcceptsBoundaryCodePoints) {
  for (char32_t c : {U'\u0000', U'\u007F', U'\u0080', U'\u07FF', U'\u0800', U'\uD7FF', U'\uE000',
                     U'\uFFFF', U'\U00010000', U'\U0010FFFF'}) {
    std::string s;
    append_utf8(s, c);
    EXPECT_TRUE(is_valid_utf8(s)) << static_cast<unsigned long>(c);
    EXPECT_EQ(decode_utf8(s), std::u32string(1, c));
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
  }
  EXPECT_EQ(find_invalid_utf8(""), std::string_view::npos);
}

TEST(Utf8, RejectsNonScalarValuesWhenEncoding) {
  std::string s;
  EXPECT_THROW(append_utf8(s, 0xD800), Error);
  EXPECT_THROW(append_utf8(s, 0x110000), Error);
}

TEST(Utf8, LowercasesLatinGreekCyrillic) {
  EXPECT_EQ(to_lower_utf8("Hello WORLD 123!"), "hello world 123!");
  EXPECT_EQ(to_lower_utf8("ÄÖÜ ẞ straße ÀÉÎÕØÞ × Ÿ"), "äöü ß straße àéîõøþ × ÿ");
  EXPECT_EQ(to_lower_utf8("ŁÓDŹ ČŠŽ ŒUVRE İ"), "łódź čšž œuvre i");
  EXPECT_EQ(to_lower_utf8("ΑΘΗΝΑ МОСКВА Ё"), "αθηνα москва ё");
  EXPECT_EQ(to_lower_utf8("日本語 😀"), "日本語 😀");  // unchanged
}

}  // namespace
}  // namespace heed
