// Pronunciation dictionaries: the two line forms (TAB-separated pronunciations, CMUdict's
// spaces), variants, comments, bad and ambiguous lines, stress stripping, the letters-only
// filter, lowercasing, and the real CMUdict export when it is installed.
#include "heed/data/pronunciation_dictionary.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "data/temp_dir.h"
#include "heed/base/error.h"

namespace heed {
namespace {

using Lines = std::vector<std::string>;

const WordPronunciations* find(const PronunciationDictionary& d, const std::string& word) {
  for (const auto& w : d.words)
    if (w.word == word) return &w;
  return nullptr;
}

TEST(PronunciationDictionary, VariantsMergeIntoOneWord) {
  auto d = parse_pronunciation_dictionary(
      {"read\tR EH1 D", "read(2)\tR IY1 D", "a\tAH0", "a(2)  EY1", "READ   R IY1  D "}, "t");
  ASSERT_EQ(d.words.size(), 2u);
  EXPECT_EQ(d.words[0].word, "read");
  EXPECT_EQ(d.words[0].pronunciations, (Lines{"R EH1 D", "R IY1 D"}));
  EXPECT_EQ(d.words[1].word, "a");
  EXPECT_EQ(d.words[1].pronunciations, (Lines{"AH0", "EY1"}));
  EXPECT_EQ(d.stats.entries, 5u);
  EXPECT_EQ(d.stats.duplicates, 1u);  // the upper-case READ repeats R IY1 D
  EXPECT_EQ(d.pronunciations(), 4u);
}

TEST(PronunciationDictionary, RepeatedWordsAnywhereAreVariants) {
  auto d = parse_pronunciation_dictionary({"tomato T AH0 M EY1 T OW2", "b B IY1",
                                           "tomato T AH0 M AA1 T OW2"},
                                          "t");
  ASSERT_EQ(d.words.size(), 2u);
  EXPECT_EQ(d.words[0].pronunciations.size(), 2u);
}

TEST(PronunciationDictionary, OnlyADigitSuffixInParenthesesIsAVariantMarker) {
  auto d = parse_pronunciation_dictionary(
      {"(paren P ER0 EH1 N", "x(a) EH1 K S", "(2) T UW1", "y(12) W AY1"}, "t");
  ASSERT_EQ(d.words.size(), 4u);
  EXPECT_EQ(d.words[0].word, "(paren");
  EXPECT_EQ(d.words[1].word, "x(a)");
  EXPECT_EQ(d.words[2].word, "(2)");
  EXPECT_EQ(d.words[3].word, "y");
}

TEST(PronunciationDictionary, CommentsAndBlankLinesAreSkipped) {
  auto d = parse_pronunciation_dictionary({";;; CMUdict header", "# a comment", "   ", "",
                                           "aalborg\tAO1 L B AO0 R G # place, danish",
                                           "  \t# indented comment", "b\tB IY1#tight"},
                                          "t");
  ASSERT_EQ(d.words.size(), 2u);
  EXPECT_EQ(d.words[0].pronunciations[0], "AO1 L B AO0 R G");
  EXPECT_EQ(d.words[1].pronunciations[0], "B IY1");
  EXPECT_EQ(d.stats.lines, 7u);
  EXPECT_EQ(d.stats.skipped, 5u);
  EXPECT_EQ(d.stats.entries, 2u);
}

TEST(PronunciationDictionary, WordsAreLowercased) {
  auto d = parse_pronunciation_dictionary({"HELLO HH AH0 L OW1", "Élan EY0 L AA1 N"}, "t");
  EXPECT_EQ(d.words[0].word, "hello");
  EXPECT_EQ(d.words[1].word, "élan");
  EXPECT_EQ(d.words[0].pronunciations[0], "HH AH0 L OW1");  // phones keep their case
}

TEST(PronunciationDictionary, BadLinesNameFileAndLine) {
  try {
    parse_pronunciation_dictionary({"ok\tOW1 K EY1", "# c", "lonely"}, "my.dict");
    FAIL() << "expected heed::Error";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("my.dict:3:"), std::string::npos) << m;
    EXPECT_NE(m.find("'lonely' has no phones"), std::string::npos) << m;
  }
  // Only a comment after the word: no phones either.
  EXPECT_THROW(parse_pronunciation_dictionary({"word # R"}, "t"), Error);
}

TEST(PronunciationDictionary, TabsSeparateSeveralPronunciationsOnALine) {
  // The form of benchmark splits that list every variant of a word on its line, and of
  // heed's own dev/test .tgt lines with the word in front.
  auto d = parse_pronunciation_dictionary(
      {"abs\tAE1 B Z\tEY1 B IY1 EH1 S", "a\tAH0\tEY1\tAH0", "b\tB IY1",
       "either\tIY1 DH ER0\tAY1 DH ER0\tIY1  DH  ER0\t# a comment after the last TAB"},
      "t");
  ASSERT_EQ(d.words.size(), 4u);
  EXPECT_EQ(d.words[0].word, "abs");
  EXPECT_EQ(d.words[0].pronunciations, (Lines{"AE1 B Z", "EY1 B IY1 EH1 S"}));
  EXPECT_EQ(d.words[1].pronunciations, (Lines{"AH0", "EY1"}));  // each TAB ends one
  EXPECT_EQ(d.words[2].pronunciations, (Lines{"B IY1"}));
  EXPECT_EQ(d.words[3].pronunciations, (Lines{"IY1 DH ER0", "AY1 DH ER0"}));
  EXPECT_EQ(d.stats.entries, 4u);
  EXPECT_EQ(d.stats.duplicates, 2u);  // a's second AH0, either's respaced IY1 DH ER0
  EXPECT_EQ(d.pronunciations(), 7u);
  EXPECT_EQ(d.words_with_several(), 3u);
}

TEST(PronunciationDictionary, BothFormsAndVariantMarkersGiveTheSameDictionary) {
  const Lines one_line = {"READ\tR EH1 D\tR IY1 D", "live\tL IH1 V\tL AY1 V", "x\tEH1 K S"};
  const Lines repeated = {"READ  R EH1 D", "live  L IH1 V", "READ  R IY1 D", "x  EH1 K S",
                          "live  L AY1 V"};
  const Lines marked = {"read\tR EH1 D", "read(2)\tR IY1 D", "live L IH1 V",
                        "live(2) L AY1 V", "x EH1 K S"};
  const Lines mixed = {"read\tR EH1 D", "live\tL IH1 V\tL AY1 V", "read(2)  R IY1 D",
                       "x\tEH1 K S"};
  auto a = parse_pronunciation_dictionary(one_line, "a");
  for (const Lines* other : {&repeated, &marked, &mixed}) {
    auto b = parse_pronunciation_dictionary(*other, "b");
    ASSERT_EQ(a.words.size(), b.words.size());
    for (std::size_t i = 0; i < a.words.size(); ++i) {
      EXPECT_EQ(a.words[i].word, b.words[i].word);
      EXPECT_EQ(a.words[i].pronunciations, b.words[i].pronunciations) << a.words[i].word;
    }
    EXPECT_EQ(b.pronunciations(), 5u);
    EXPECT_EQ(b.words_with_several(), 2u);
  }
}

TEST(PronunciationDictionary, BlanksAroundTheTabsAreNotPhones) {
  // Any run of blanks holding a TAB may follow the word (aligned columns), and spaces next
  // to a TAB between pronunciations belong to neither.
  auto d = parse_pronunciation_dictionary(
      {"a \t AH0 \t EY1", "b\t\tB IY1", "c\tS IY1 \r"}, "t");
  ASSERT_EQ(d.words.size(), 3u);
  EXPECT_EQ(d.words[0].pronunciations, (Lines{"AH0", "EY1"}));
  EXPECT_EQ(d.words[1].pronunciations, (Lines{"B IY1"}));
  EXPECT_EQ(d.words[2].pronunciations, (Lines{"S IY1"}));
}

TEST(PronunciationDictionary, AmbiguousLinesNameFileAndLine) {
  // A space-separated word makes the rest one pronunciation: a TAB inside it may be a
  // second pronunciation or a phone separator, so it is refused rather than guessed at.
  for (const std::string& bad : {std::string("abs  AE1 B Z\tEY1 B IY1 EH1 S"),
                                 std::string("abs AE1\tB\tZ")}) {
    try {
      parse_pronunciation_dictionary({"ok\tOW1 K EY1", bad}, "bench.test");
      FAIL() << "expected heed::Error for " << bad;
    } catch (const Error& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("bench.test:2: ambiguous line"), std::string::npos) << m;
      EXPECT_NE(m.find("WORD<TAB>PRON1<TAB>PRON2"), std::string::npos) << m;
    }
  }
  // An empty pronunciation between two TABs: a blank column, or phones split by TABs.
  // (Blanks ending a line are no pronunciation: see TabsSeparateSeveralPronunciationsOnALine.)
  for (const std::string& bad : {std::string("a\tAH0\t\tEY1"), std::string("a\tAH0\t \tEY1"),
                                 std::string("a\tAH0\t\t\tEY1 # c")}) {
    try {
      parse_pronunciation_dictionary({"# c", "ok\tOW1 K EY1", bad}, "my.dict");
      FAIL() << "expected heed::Error for " << bad;
    } catch (const Error& e) {
      std::string m = e.what();
      EXPECT_NE(m.find("my.dict:3: pronunciation 2 is empty"), std::string::npos) << m;
    }
  }
}

TEST(PronunciationDictionary, StressStripping) {
  EXPECT_EQ(strip_stress("AH0"), "AH");
  EXPECT_EQ(strip_stress("ER12"), "ER");
  EXPECT_EQ(strip_stress("K"), "K");
  EXPECT_EQ(strip_stress("0"), "0");
  DictionaryOptions o;
  o.strip_stress = true;
  // The variants differ only in stress, so they collapse into one.
  auto d = parse_pronunciation_dictionary({"project P R AA1 JH EH0 K T",
                                           "project(2) P R AA1 JH EH2 K T"},
                                          "t", o);
  ASSERT_EQ(d.words.size(), 1u);
  EXPECT_EQ(d.words[0].pronunciations, (Lines{"P R AA JH EH K T"}));
  EXPECT_EQ(d.stats.duplicates, 1u);
  // The same on one line: the variants merge there too.
  auto e = parse_pronunciation_dictionary({"project\tP R AA1 JH EH0 K T\tP R AA1 JH EH2 K T"},
                                          "t", o);
  EXPECT_EQ(e.words[0].pronunciations, (Lines{"P R AA JH EH K T"}));
  EXPECT_EQ(e.stats.duplicates, 1u);
  EXPECT_EQ(e.words_with_several(), 0u);
}

TEST(PronunciationDictionary, LettersOnlyFilter) {
  EXPECT_TRUE(is_letters_only("abc"));
  EXPECT_TRUE(is_letters_only("'bout"));
  EXPECT_TRUE(is_letters_only("o'neill"));
  EXPECT_TRUE(is_letters_only("élan"));
  EXPECT_FALSE(is_letters_only("a."));
  EXPECT_FALSE(is_letters_only("able-bodied"));
  EXPECT_FALSE(is_letters_only("3d"));
  EXPECT_FALSE(is_letters_only("'"));
  EXPECT_FALSE(is_letters_only(""));
  EXPECT_FALSE(is_letters_only("a\xC2\xA7"));        // §
  EXPECT_FALSE(is_letters_only("a\xE2\x80\x94" "b"));  // em dash
  DictionaryOptions o;
  o.letters_only = true;
  auto d = parse_pronunciation_dictionary(
      {"a.\tEY1", "'bout\tB AW1 T", "ad-hoc\tAE1 D HH AA1 K", "A\tAH0",
       "x2\tEH1 K S T UW1\tEH1 K S T UW0"},
      "t", o);
  ASSERT_EQ(d.words.size(), 2u);
  EXPECT_EQ(d.words[0].word, "'bout");
  EXPECT_EQ(d.words[1].word, "a");
  EXPECT_EQ(d.stats.not_letters, 3u);  // entry lines, whatever their pronunciations
  EXPECT_EQ(d.stats.entries, 5u);
  EXPECT_EQ(d.pronunciations(), 2u);
}

TEST(PronunciationDictionary, ReadsFilesWithCrLfAndBom) {
  testing::TempDir dir;
  auto path = dir.write("d.txt", "\xEF\xBB\xBF;;; x\r\nread\tR EH1 D\r\nread(2)\tR IY1 D\r\n");
  auto d = read_pronunciation_dictionary(path);
  ASSERT_EQ(d.words.size(), 1u);
  EXPECT_EQ(d.words[0].pronunciations, (Lines{"R EH1 D", "R IY1 D"}));
  EXPECT_THROW(read_pronunciation_dictionary(dir.file("missing.txt")), Error);
}

// The real dictionary, where tools/setup.sh installed it (CI runs setup.sh).
TEST(PronunciationDictionary, RealCmudictExport) {
  const std::string path = default_cmudict_path();
  if (!std::filesystem::exists(path)) GTEST_SKIP() << path << " not installed (tools/setup.sh)";
  auto d = read_pronunciation_dictionary(path);
  EXPECT_GT(d.stats.entries, 130000u);
  EXPECT_GT(d.words.size(), 120000u);
  const auto* read = find(d, "read");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->pronunciations, (Lines{"R EH1 D", "R IY1 D"}));
  const auto* aalborg = find(d, "aalborg");  // carries a "# place, danish" comment
  ASSERT_NE(aalborg, nullptr);
  EXPECT_EQ(aalborg->pronunciations.at(0), "AO1 L B AO0 R G");
  for (const auto& w : d.words)
    for (const auto& p : w.pronunciations) ASSERT_EQ(p.find('#'), std::string::npos) << w.word;

  DictionaryOptions o;
  o.letters_only = true;
  o.strip_stress = true;
  auto f = read_pronunciation_dictionary(path, o);
  EXPECT_GT(f.stats.not_letters, 0u);
  EXPECT_LT(f.words.size(), d.words.size());
  for (const auto& w : f.words) {
    ASSERT_TRUE(is_letters_only(w.word)) << w.word;
    for (const auto& p : w.pronunciations)
      ASSERT_EQ(p.find_first_of("0123456789"), std::string::npos) << w.word << " " << p;
  }
}

}  // namespace
}  // namespace heed
