#include "heed/metrics/text.h"

#include <gtest/gtest.h>

// UTF-8 decoding and lowercasing are heed/base/utf8.h, tested in tests/base/utf8_test.cpp.

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
  // Invalid bytes are kept inside their words.
  EXPECT_EQ(split_whitespace("a\xFF b\xC2"), (Strings{"a\xFF", "b\xC2"}));
}

TEST(MetricsText, StripAndRemove) {
  EXPECT_EQ(rstrip("ab c \t\n"), "ab c");
  EXPECT_EQ(rstrip("x\xC2\xA0"), "x");
  EXPECT_EQ(remove_whitespace(" a b\tc "), "abc");
}

TEST(MetricsText, SplitOnKeepsEmptyFields) {
  EXPECT_EQ(split_on("a\t\tb", '\t'), (Strings{"a", "", "b"}));
  EXPECT_EQ(split_on("", '\t'), Strings{""});
}

}  // namespace
}  // namespace heed::metrics
