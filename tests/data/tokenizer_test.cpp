#include "heed/data/tokenizer.h"

#include <gtest/gtest.h>

#include "heed/base/error.h"

namespace heed {
namespace {
using Pieces = std::vector<std::string>;

TEST(CharTokenizer, SplitsCodePointsAndMarksSpaces) {
  CharTokenizer tok;
  EXPECT_EQ(tok.encode("Ab ä€😀"), (Pieces{"A", "b", "▁", "ä", "€", "😀"}));
  EXPECT_EQ(tok.name(), "char");
  EXPECT_TRUE(tok.encode("").empty());
}

TEST(CharTokenizer, RoundTripsExactly) {
  CharTokenizer tok;
  for (std::string s : {"Ein Mann mit einem orangefarbenen Hut.", "  two  spaces ", "tab\there",
                        "日本語のテキスト", "emoji 😀 👍🏽", ""})
    EXPECT_EQ(tok.decode(tok.encode(s)), s) << s;
}

TEST(CharTokenizer, Lowercases) {
  CharTokenizer tok(/*lowercase=*/true);
  EXPECT_TRUE(tok.lowercase());
  EXPECT_EQ(tok.encode("ÄB"), (Pieces{"ä", "b"}));
  EXPECT_EQ(tok.decode(tok.encode("Große Öfen")), "große öfen");
}

// The same lowercasing as heed score --lowercase (heed::to_lower, Python's str.lower()):
// every cased script, final sigma, and U+0130 to two code points.
TEST(CharTokenizer, LowercasesLikeTheMetrics) {
  CharTokenizer tok(/*lowercase=*/true);
  EXPECT_EQ(tok.decode(tok.encode("ΟΔΥΣΣΕΥΣ ԱՐԱ ＡＢ")), "οδυσσευς արա ａｂ");
  EXPECT_EQ(tok.encode("İ"), (Pieces{"i", "\u0307"}));
}

TEST(CharTokenizer, RejectsInvalidUtf8) {
  CharTokenizer tok;
  EXPECT_THROW(tok.encode("a\xC3"), Error);
}

TEST(WhitespaceTokenizer, SplitsOnSpacesAndTabs) {
  WhitespaceTokenizer tok;
  EXPECT_EQ(tok.encode("  a  b\tc. "), (Pieces{"a", "b", "c."}));
  EXPECT_TRUE(tok.encode("   ").empty());
  EXPECT_EQ(tok.name(), "whitespace");
}

TEST(WhitespaceTokenizer, RoundTripsNormalisedText) {
  WhitespaceTokenizer tok;
  for (std::string s : {"a man in an orange hat .", "ein Mädchen", "x", ""})
    EXPECT_EQ(tok.decode(tok.encode(s)), s);
  EXPECT_EQ(tok.decode(tok.encode(" a \t b ")), "a b");
}

TEST(WhitespaceTokenizer, Lowercases) {
  WhitespaceTokenizer tok(true);
  EXPECT_EQ(tok.encode("Über ALLES"), (Pieces{"über", "alles"}));
}

TEST(MakeTokenizer, BuildsByName) {
  EXPECT_EQ(make_tokenizer("char")->name(), "char");
  auto ws = make_tokenizer("whitespace", true);
  EXPECT_EQ(ws->name(), "whitespace");
  EXPECT_TRUE(ws->lowercase());
  EXPECT_THROW(make_tokenizer("bpe"), Error);
  EXPECT_THROW(make_tokenizer("sentencepiece"), Error);
}

}  // namespace
}  // namespace heed
