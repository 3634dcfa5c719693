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
