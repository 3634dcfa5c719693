// G2P splits: by word (no word in two splits, all its pronunciations together),
// reproducible with the seed, fractions about right, the existing-split mode, and the files.
#include "heed/data/g2p_split.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "data/temp_dir.h"
#include "heed/base/error.h"
#include "heed/data/text_file.h"

namespace heed {
namespace {

using Lines = std::vector<std::string>;

// n words w0..w(n-1); every third word has two pronunciations.
std::vector<WordPronunciations> make_words(int n, const std::string& prefix = "w") {
  std::vector<WordPronunciations> out;
  for (int i = 0; i < n; ++i) {
    WordPronunciations w{prefix + std::to_string(i), {"P" + std::to_string(i)}};
    if (i % 3 == 0) w.pronunciations.push_back("Q" + std::to_string(i));
    out.push_back(w);
  }
  return out;
}

std::set<std::string> words_of(const std::vector<WordPronunciations>& part) {
  std::set<std::string> s;
  for (const auto& w : part) s.insert(w.word);
  return s;
}

TEST(G2pSplit, ByWordDisjointAndComplete) {
  auto words = make_words(1000);
  auto split = split_by_word(words, {});
  EXPECT_EQ(split.test.size(), 50u);
  EXPECT_EQ(split.dev.size(), 50u);
  EXPECT_EQ(split.train.size(), 900u);
  auto tr = words_of(split.train), dv = words_of(split.dev), te = words_of(split.test);
  EXPECT_EQ(tr.size() + dv.size() + te.size(), 1000u);
  for (const auto& w : dv) EXPECT_FALSE(tr.count(w) || te.count(w)) << w;
  for (const auto& w : te) EXPECT_FALSE(tr.count(w)) << w;
  // Every pronunciation travels with its word.
  EXPECT_EQ(count_pronunciations(split.train) + count_pronunciations(split.dev) +
                count_pronunciations(split.test),
            count_pronunciations(words));
  for (const auto* part : {&split.train, &split.dev, &split.test})
    for (const auto& w : *part)
      EXPECT_EQ(w.pronunciations.size(), std::stoi(w.word.substr(1)) % 3 == 0 ? 2u : 1u);
}

TEST(G2pSplit, ReproducibleWithTheSeedAndIndependentOfInputOrder) {
  auto words = make_words(500);
  auto a = split_by_word(words, {});
  std::vector<WordPronunciations> reversed(words.rbegin(), words.rend());
  auto b = split_by_word(reversed, {});
  EXPECT_EQ(words_of(a.test), words_of(b.test));
  EXPECT_EQ(words_of(a.dev), words_of(b.dev));
  G2pSplitOptions other;
  other.seed = 99;
  auto c = split_by_word(words, other);
  EXPECT_NE(words_of(a.test), words_of(c.test));
  // Each split comes out sorted by word.
  for (std::size_t i = 1; i < a.train.size(); ++i) EXPECT_LT(a.train[i - 1].word, a.train[i].word);
}

TEST(G2pSplit, FractionsRoundAndAreChecked) {
  G2pSplitOptions o;
  o.dev_fraction = 0.1;
  o.test_fraction = 0.2;
  auto s = split_by_word(make_words(37), o);
  EXPECT_EQ(s.dev.size(), 4u);   // round(3.7)
  EXPECT_EQ(s.test.size(), 7u);  // round(7.4)
  EXPECT_EQ(s.train.size(), 26u);
  o.dev_fraction = 0.0;
  o.test_fraction = 0.0;
  EXPECT_EQ(split_by_word(make_words(10), o).train.size(), 10u);
  o.dev_fraction = 0.5;
  o.test_fraction = 0.5;
  EXPECT_THROW(split_by_word(make_words(10), o), Error);
  o.dev_fraction = -0.1;
  o.test_fraction = 0.1;
  EXPECT_THROW(split_by_word(make_words(10), o), Error);
  o.dev_fraction = 0.45;
  o.test_fraction = 0.45;  // 2 words: one each, none left to train on
  EXPECT_THROW(split_by_word(make_words(2), o), Error);
  auto dup = make_words(3);
  dup.push_back(dup[0]);
  EXPECT_THROW(split_by_word(dup, {}), Error);
}

TEST(G2pSplit, ExistingSplitCarvesDevAndDropsOverlap) {
  auto train = make_words(200);
  auto test = make_words(20, "t");
  test.push_back({"w5", {"X"}});  // also a training word
  G2pSplitOptions o;
  o.dev_fraction = 0.1;
  auto s = split_existing(train, test, o);
  EXPECT_EQ(s.overlap_removed, 1u);
  EXPECT_EQ(s.test.size(), 21u);
  EXPECT_EQ(s.dev.size(), 20u);  // round(199 * 0.1)
  EXPECT_EQ(s.train.size(), 179u);
  EXPECT_FALSE(words_of(s.train).count("w5"));
  EXPECT_FALSE(words_of(s.dev).count("w5"));
  for (const auto& w : words_of(s.dev)) EXPECT_FALSE(words_of(s.train).count(w));
  auto again = split_existing(train, test, o);
  EXPECT_EQ(words_of(again.dev), words_of(s.dev));
}

TEST(G2pSplit, WritesFiles) {
  testing::TempDir dir;
  G2pSplit s;
  s.train = {{"a", {"AH0", "EY1"}}, {"b", {"B IY1"}}};
  s.dev = {{"read", {"R EH1 D", "R IY1 D"}}};
  s.test = {{"c", {"S IY1"}}};
  const std::string out = dir.file("out/nested");
  write_g2p_split(s, out);
  EXPECT_EQ(read_lines(out + "/train.src"), (Lines{"a", "a", "b"}));
  EXPECT_EQ(read_lines(out + "/train.tgt"), (Lines{"AH0", "EY1", "B IY1"}));
  EXPECT_EQ(read_lines(out + "/dev.src"), (Lines{"read"}));
  EXPECT_EQ(read_lines(out + "/dev.tgt"), (Lines{"R EH1 D\tR IY1 D"}));
  EXPECT_EQ(read_lines(out + "/test.src"), (Lines{"c"}));
  EXPECT_EQ(read_lines(out + "/test.tgt"), (Lines{"S IY1"}));
}

}  // namespace
}  // namespace heed
