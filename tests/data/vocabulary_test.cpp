#include "heed/data/vocabulary.h"

#include <gtest/gtest.h>

#include "data/temp_dir.h"
#include "heed/base/error.h"

namespace heed {
namespace {
using testing::TempDir;
using Tokens = std::vector<std::string>;

template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TokenCounter counter_of(const std::vector<std::pair<std::string, int>>& counts) {
  TokenCounter c;
  for (const auto& [t, n] : counts) c.add(t, n);
  return c;
}

TEST(Vocabulary, SpecialsHaveFixedIds) {
  Vocabulary v;
  EXPECT_EQ(v.size(), 4u);
  EXPECT_EQ(v.id("<pad>"), 0);
  EXPECT_EQ(v.id("<s>"), 1);
  EXPECT_EQ(v.id("</s>"), 2);
  EXPECT_EQ(v.id("<unk>"), 3);
  EXPECT_EQ(Vocabulary::kPad, 0);
  EXPECT_EQ(Vocabulary::kBos, 1);
  EXPECT_EQ(Vocabulary::kEos, 2);
  EXPECT_EQ(Vocabulary::kUnk, 3);
}

TEST(Vocabulary, BuildOrdersByCountThenBytes) {
  auto c = counter_of({{"b", 5}, {"a", 5}, {"z", 9}, {"ä", 5}, {"c", 1}});
  Vocabulary v = Vocabulary::build(c);
  EXPECT_EQ(v.tokens(), (Tokens{"<pad>", "<s>", "</s>", "<unk>", "z", "a", "b", "ä", "c"}));
}

TEST(Vocabulary, BuildIsIndependentOfInsertionOrder) {
  TokenCounter a, b;
  a.add(Tokens{"x", "y", "z", "y"});
  b.add(Tokens{"z", "y", "y", "x"});
  EXPECT_EQ(Vocabulary::build(a), Vocabulary::build(b));
}

TEST(Vocabulary, BuildAppliesLimits) {
  auto c = counter_of({{"a", 10}, {"b", 7}, {"c", 3}, {"d", 1}, {"<unk>", 100}});
  EXPECT_EQ(Vocabulary::build(c, {.max_size = 6}).tokens(),
            (Tokens{"<pad>", "<s>", "</s>", "<unk>", "a", "b"}));
  EXPECT_EQ(Vocabulary::build(c, {.max_size = 0, .min_freq = 3}).size(), 7u);
  EXPECT_EQ(Vocabulary::build(c, {.max_size = 4}).size(), 4u);
  EXPECT_THROW(Vocabulary::build(c, {.max_size = 3}), Error);
}

TEST(Vocabulary, EncodeMapsUnknownsToUnk) {
  Vocabulary v = Vocabulary::from_tokens({"hello", "world"});
  EXPECT_EQ(v.encode({"hello", "there", "world"}), (std::vector<std::int32_t>{4, 3, 5}));
  EXPECT_EQ(v.id("missing"), Vocabulary::kUnk);
  EXPECT_TRUE(v.contains("world"));
  EXPECT_FALSE(v.contains("there"));
}

TEST(Vocabulary, DecodeStripsSpecialsAndStopsAtEos) {
  Vocabulary v = Vocabulary::from_tokens({"a", "b"});
  std::vector<std::int32_t> ids{1, 4, 3, 5, 2, 4, 0};
  EXPECT_EQ(v.decode(ids), (Tokens{"a", "<unk>", "b"}));
  EXPECT_EQ(v.decode(ids, false, false), (Tokens{"<s>", "a", "<unk>", "b", "</s>", "a", "<pad>"}));
  EXPECT_EQ(v.decode(ids, true, false), (Tokens{"a", "<unk>", "b", "a"}));
  EXPECT_THROW(v.decode({7}), Error);
  EXPECT_THROW(v.token(-1), Error);
}

TEST(Vocabulary, FromTokensRejectsBadTokens) {
  EXPECT_THROW(Vocabulary::from_tokens({"a", "a"}), Error);
  EXPECT_THROW(Vocabulary::from_tokens({""}), Error);
  EXPECT_THROW(Vocabulary::from_tokens({"</s>"}), Error);
}

TEST(Vocabulary, SaveLoadRoundTripWithAwkwardTokens) {
  TempDir dir;
  Vocabulary v = Vocabulary::from_tokens({"▁", "Grüße", "\\", "a\tb", "\r", "x\ny", "\\n", "😀"});
  v.save(dir.file("vocab.txt"));
  EXPECT_EQ(Vocabulary::load(dir.file("vocab.txt")), v);
  EXPECT_FALSE(std::filesystem::exists(dir.file("vocab.txt.tmp")));
}

TEST(Vocabulary, FileIsPlainTextOneTokenPerLine) {
  TempDir dir;
  Vocabulary::from_tokens({"der", "die"}).save(dir.file("v"));
  std::ifstream in(dir.file("v"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "<pad>\n<s>\n</s>\n<unk>\nder\ndie\n");
}

TEST(Vocabulary, LoadReportsFileAndLine) {
  TempDir dir;
  std::string p = dir.write("no_specials", "der\ndie\n");
  EXPECT_EQ(error_of([&] { Vocabulary::load(p); })
                .rfind(p + ":1: expected the special token <pad>", 0), 0u);
  std::string short_file = dir.write("short", "<pad>\n<s>\n");
  EXPECT_NE(error_of([&] { Vocabulary::load(short_file); }).find(short_file + ":3:"),
            std::string::npos);
  std::string dup = dir.write("dup", "<pad>\n<s>\n</s>\n<unk>\na\nb\na\n");
  EXPECT_EQ(error_of([&] { Vocabulary::load(dup); })
                .rfind(dup + ":7: duplicate token 'a' (first at id 4)", 0), 0u);
  std::string empty_line = dir.write("empty_line", "<pad>\n<s>\n</s>\n<unk>\na\n\nb\n");
  EXPECT_EQ(error_of([&] { Vocabulary::load(empty_line); }), empty_line + ":6: empty token");
  std::string escape = dir.write("escape", "<pad>\n<s>\n</s>\n<unk>\na\\q\n");
  EXPECT_NE(error_of([&] { Vocabulary::load(escape); }).find(escape + ":5: unknown escape"),
            std::string::npos);
  std::string special = dir.write("special", "<pad>\n<s>\n</s>\n<unk>\n<s>\n");
  EXPECT_NE(error_of([&] { Vocabulary::load(special); }).find(special + ":5: token '<s>' is reserved"),
            std::string::npos);
  EXPECT_NE(error_of([&] { Vocabulary::load(dir.file("none")); }).find(dir.file("none")),
            std::string::npos);
}

}  // namespace
}  // namespace heed
