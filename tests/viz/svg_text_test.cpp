// XML escaping of arbitrary tokens, label shortening and the text width estimate.
#include <gtest/gtest.h>

#include <string>

#include "heed/viz/svg_text.h"
#include "viz/xml_check.h"

namespace heed::viz {
namespace {

TEST(SvgText, EscapesMarkupCharacters) {
  EXPECT_EQ(xml_escape("a<b>&\"c\"'d'"), "a&lt;b&gt;&amp;&quot;c&quot;&apos;d&apos;");
  EXPECT_EQ(xml_escape("&amp;"), "&amp;amp;");
  EXPECT_EQ(xml_escape(""), "");
}

TEST(SvgText, KeepsValidUtf8) {
  const std::string s = "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80 \xE2\x96\x81word";
  EXPECT_EQ(xml_escape(s), s);
}

TEST(SvgText, ReplacesInvalidUtf8AndForbiddenControls) {
  const std::string fffd = "\xEF\xBF\xBD";
  EXPECT_EQ(xml_escape("a\xFF" "b"), "a" + fffd + "b");
  EXPECT_EQ(xml_escape("\xC3"), fffd);                  // truncated sequence
  EXPECT_EQ(xml_escape("\xC0\xAF"), fffd + fffd);       // overlong '/'
  EXPECT_EQ(xml_escape("\xED\xA0\x80"), fffd + fffd + fffd);  // surrogate
  EXPECT_EQ(xml_escape(std::string("a\x01" "b\x1B", 4)), "a" + fffd + "b" + fffd);
  EXPECT_EQ(xml_escape(std::string("\0", 1)), fffd);
  EXPECT_EQ(xml_escape("\t\n"), "\t\n");  // allowed in XML
  // Whatever goes in, the result is well-formed inside an element.
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  auto check = heed::testing::check_xml("<t>" + xml_escape(all) + "</t>");
  EXPECT_TRUE(check.ok()) << check.error;
}

TEST(SvgText, WidthGrowsWithTextAndFont) {
  EXPECT_DOUBLE_EQ(text_width("", 12), 0.0);
  EXPECT_GT(text_width("international", 12), text_width("in", 12));
  EXPECT_NEAR(text_width("abc", 24), 2 * text_width("abc", 12), 1e-9);
  // East Asian characters are about twice as wide as Latin letters; combining marks add
  // nothing.
  EXPECT_NEAR(text_width("\xE6\x97\xA5", 10), 10.0, 1e-9);
  EXPECT_DOUBLE_EQ(text_width("e\xCC\x81", 10), text_width("e", 10));
}

TEST(SvgText, LabelsShortenLongTokensAndShowEmptyOnes) {
  EXPECT_EQ(label_text("cat", 24), "cat");
  EXPECT_EQ(label_text("abcdefghij", 5), "abcd\xE2\x80\xA6");
  EXPECT_EQ(label_text("abcde", 5), "abcde");
  // Counts code points, not bytes.
  EXPECT_EQ(label_text("\xC3\xA9\xC3\xA9\xC3\xA9", 2), "\xC3\xA9\xE2\x80\xA6");
  EXPECT_EQ(label_text("", 5), "\xE2\x88\x85");
  EXPECT_EQ(label_text("  ", 5), "\xE2\x90\xA3");
  EXPECT_EQ(label_text("abcdefghij", 0), "abcdefghij");  // 0: no limit
}

}  // namespace
}  // namespace heed::viz
