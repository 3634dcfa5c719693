#include "heed/metrics/tokenizer_13a.h"

#include <gtest/gtest.h>

namespace heed::metrics {
namespace {

TEST(Tokenizer13a, SplitsPunctuation) {
  EXPECT_EQ(tokenize_13a("Hello, world!"), "Hello , world !");
  EXPECT_EQ(tokenize_13a("The dog bit the man."), "The dog bit the man .");
  EXPECT_EQ(tokenize_13a("(a) [b] {c} \"d\" x/y a@b #1 $2 50% a&b"),
            "( a ) [ b ] { c } \" d \" x / y a @ b # 1 $ 2 50 % a & b");
  EXPECT_EQ(tokenize_13a("a;b:c?d=e<f>g+h*i^j_k`l|m~n\\o"),
            "a ; b : c ? d = e < f > g + h * i ^ j _ k ` l | m ~ n \\ o");
}

TEST(Tokenizer13a, KeepsApostrophesAndInnerHyphens) {
  EXPECT_EQ(tokenize_13a("It wasn't surprising."), "It wasn't surprising .");
  EXPECT_EQ(tokenize_13a("a well-known fact"), "a well-known fact");
}

TEST(Tokenizer13a, PeriodsAndCommasNearDigits) {
  EXPECT_EQ(tokenize_13a("pi is 3.14 today"), "pi is 3.14 today");
  EXPECT_EQ(tokenize_13a("1,000,000 people"), "1,000,000 people");
  EXPECT_EQ(tokenize_13a("the end."), "the end .");
  EXPECT_EQ(tokenize_13a("in 2019."), "in 2019 .");   // after a digit, before the end
  EXPECT_EQ(tokenize_13a("v.2"), "v . 2");             // preceded by a letter
  EXPECT_EQ(tokenize_13a(".5 and 5."), ". 5 and 5 .");
  EXPECT_EQ(tokenize_13a("a,b"), "a , b");
  EXPECT_EQ(tokenize_13a("3,a"), "3 , a");
  EXPECT_EQ(tokenize_13a("Wait..."), "Wait . . .");
  EXPECT_EQ(tokenize_13a("etc.,"), "etc . ,");
}

TEST(Tokenizer13a, DashAfterDigit) {
  EXPECT_EQ(tokenize_13a("1990-2000"), "1990 - 2000");
  EXPECT_EQ(tokenize_13a("x-1"), "x-1");
  EXPECT_EQ(tokenize_13a("5-"), "5 -");
}

TEST(Tokenizer13a, EntitiesTagsAndLineJoins) {
  EXPECT_EQ(tokenize_13a("&quot;Hi&quot; &amp; &lt;b&gt;"), "\" Hi \" & < b >");
  EXPECT_EQ(tokenize_13a("a <skipped> b"), "a b");
  EXPECT_EQ(tokenize_13a("hyphen-\nated line\nbreak"), "hyphenated line break");
  EXPECT_EQ(tokenize_13a("&amp;quot;"), "& quot ;");  // one pass per entity, in order
}

TEST(Tokenizer13a, WhitespaceAndUnicode) {
  EXPECT_EQ(tokenize_13a("  many   spaces\there  "), "many spaces here");
  EXPECT_EQ(tokenize_13a(""), "");
  EXPECT_EQ(tokenize_13a("Grüße, Café."), "Grüße , Café .");
  EXPECT_EQ(tokenize_13a("„Zitat“ – ok"), "„Zitat“ – ok");  // non-ASCII punctuation stays
}

}  // namespace
}  // namespace heed::metrics
