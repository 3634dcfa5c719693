#include "heed/metrics/text.h"

#include <gtest/gtest.h>

namespace heed::metrics {
namespace {

using Strings = std::vector<std::string>;

TEST(MetricsText, SplitWhitespaceLikePython) {
  EXPECT_EQ(split_whitespace("  a b\t\tc \n"), (Strings{"a", "b", "c"}));
  EXPECT_EQ(split_whitespace(""), Strings{});
  EXPECT_EQ(split_whitespace(" \t "), Strings{});
  // Python's str.split() also splits on NO-BREAK SPACE and IDEOGRAPHIC SPACE.
  EXPECT_EQ(split_whitespace("a\xC2\xA0" "b\xE3\x80\x80" "c"), (Strings{"a", "b", "c"}));
  // ...but not on ZERO WIDTH SPACE.
  EXPECT_EQ(split_whitespace("a\xE2\x80\x8B" "b"), Strings{"a\xE2\x80\x8B" "b"});
}

TEST(MetricsText, StripAndRemove) {
  EXPECT_EQ(rstrip("ab c \t\n"), "ab c");
  EXPECT_EQ(rstrip("x\xC2\xA0"), "x");
  EXPECT_EQ(remove_whitespace(" a b\tc "), "abc");
}

TEST(MetricsText, Utf8RoundTripKeepsInvalidBytes) {
  std::string s = "Gr\xC3\xBC\xC3\x9F" "e \xFF\x80 \xE2\x82";  // "Grüße", then invalid bytes
  std::u32string cps = utf8_decode(s);
  EXPECT_EQ(cps.substr(0, 5), U"Grüße");
  EXPECT_EQ(cps[6], char32_t(0xDCFF));  // surrogateescape, as Python
  EXPECT_EQ(utf8_encode(cps), s);
}

TEST(MetricsText, LowercaseBeyondAscii) {
  EXPECT_EQ(lowercase("Hello WORLD 42!"), "hello world 42!");
  EXPECT_EQ(lowercase("ÄÖÜ ẞ Straße"), "äöü ß straße");
  EXPECT_EQ(lowercase("ÉCOLE ŁÓDŹ ŒUVRE Ÿ"), "école łódź œuvre ÿ");
  EXPECT_EQ(lowercase("ПРИВЕТ Ёж"), "привет ёж");
  EXPECT_EQ(lowercase("ΟΔΥΣΣΕΥΣ Σ"), "οδυσσευς σ");  // final sigma only after a letter
  EXPECT_EQ(lowercase("İ"), "i\xCC\x87");
  EXPECT_EQ(lowercase("ĲĹĽŊŽ"), "ĳĺľŋž");
}

TEST(MetricsText, SplitOnKeepsEmptyFields) {
  EXPECT_EQ(split_on("a\t\tb", '\t'), (Strings{"a", "", "b"}));
  EXPECT_EQ(split_on("", '\t'), Strings{""});
}

}  // namespace
}  // namespace heed::metrics
