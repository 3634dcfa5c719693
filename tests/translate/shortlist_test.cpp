// The vocabulary shortlist's file, its two builders and its resolution against vocabularies
// (translate/shortlist.h): a round trip, the rankings by attention links and by Dice, the
// union per batch, and bad files refused with the file and the line named.
#include "heed/translate/shortlist.h"

#include <algorithm>
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "data/temp_dir.h"
#include "heed/base/error.h"

namespace heed {
namespace {

using Pieces = std::vector<std::string>;
using testing::TempDir;

Shortlist sample() {
  Shortlist s;
  s.from = ShortlistSource::cooccurrence;
  s.top_k = 2;
  s.frequent = {"the", "a"};
  s.lists = {{"chat", {"cat", "the"}}, {"le", {"the"}}, {"noir", {}}};
  return s;
}

TEST(ShortlistFile, RoundTrips) {
  TempDir tmp;
  const std::string path = tmp.file("s.shortlist");
  write_shortlist(path, sample());
  const Shortlist back = read_shortlist(path);
  EXPECT_EQ(back.from, ShortlistSource::cooccurrence);
  EXPECT_EQ(back.top_k, 2u);
  EXPECT_EQ(back.frequent, sample().frequent);
  EXPECT_EQ(back.lists, sample().lists);
  // No frequent pieces: an empty second line.
  Shortlist none = sample();
  none.frequent.clear();
  write_shortlist(path, none);
  EXPECT_TRUE(read_shortlist(path).frequent.empty());
  EXPECT_EQ(read_shortlist(path).lists, sample().lists);
}

TEST(ShortlistFile, WritesTheDocumentedLayout) {
  TempDir tmp;
  const std::string path = tmp.file("s.shortlist");
  write_shortlist(path, sample());
  std::ifstream in(path, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_EQ(text,
            "heed-shortlist\t1\ttop-k=2\tfrequent=2\tfrom=cooccurrence\n"
            "the\ta\n"
            "chat\tcat\tthe\n"
            "le\tthe\n"
            "noir\n");
}

TEST(ShortlistFile, BadFilesNameTheFileAndLine) {
  TempDir tmp;
  const std::string h = "heed-shortlist\t1\ttop-k=2\tfrequent=1\tfrom=attention\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "the file is empty; expected the header line"},
      {"a\tb\n", "line 1: expected the header 'heed-shortlist<TAB>1"},
      {"heed-shortlist\t2\ttop-k=2\tfrequent=1\tfrom=attention\n",
       "line 1: version '2' is not supported"},
      {"heed-shortlist\t1\ttop-k=2\n", "line 1: expected 5 TAB-separated fields, got 3"},
      {"heed-shortlist\t1\ttop-k=x\tfrequent=1\tfrom=attention\n",
       "line 1: expected 'top-k=<count>', got 'top-k=x'"},
      {"heed-shortlist\t1\ttop-k=2\tfrequent=1\tfrom=magic\n",
       "line 1: expected 'from=' attention | cooccurrence"},
      {h, "line 2: missing; expected the 1 frequent target pieces"},
      {h + "the\ta\n", "line 2: 2 frequent target pieces, the header says 1"},
      {h + "the\nle\tthe\n\tx\n", "line 4: expected a source piece"},
      {h + "the\nle\tthe\ta\tan\n", "line 3: 3 target pieces, more than top-k=2"},
      {h + "the\nle\t\tthe\n", "line 3: an empty target piece"},
      {h + "the\nle\tthe\nle\ta\n", "line 4: source piece 'le' listed twice"},
  };
  for (const auto& [bytes, expected] : cases) {
    const std::string path = tmp.write("bad.shortlist", bytes);
    try {
      read_shortlist(path);
      ADD_FAILURE() << "accepted: " << bytes;
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("shortlist " + path), std::string::npos) << what;
      EXPECT_NE(what.find(expected), std::string::npos) << what;
    }
  }
  EXPECT_THROW(read_shortlist(tmp.file("missing")), Error);
  Shortlist tab = sample();
  tab.lists[0].second[0] = "c\tt";
  EXPECT_THROW(write_shortlist(tmp.file("t"), tab), Error);
}

TEST(ShortlistBuilder, AttentionRanksByLinksAndFrequentByCount) {
  ShortlistBuilder b;
  b.add_pair({"le", "chat"}, {"the", "cat"});
  b.add_pair({"le", "chien"}, {"the", "dog", "the"});
  b.add_link("le", "the");
  b.add_link("le", "the");
  b.add_link("le", "dog");
  b.add_link("chat", "cat");
  b.add_link("chien", "dog");
  b.add_link("chien", "the");
  const Shortlist s = b.build(ShortlistSource::attention, 1, 2);
  EXPECT_EQ(s.frequent, (Pieces{"the", "cat"}));  // 3, then 1 each: ties by piece
  ASSERT_EQ(s.lists.size(), 3u);
  EXPECT_EQ(s.lists[0], (std::pair<std::string, Pieces>{"chat", {"cat"}}));
  EXPECT_EQ(s.lists[1], (std::pair<std::string, Pieces>{"chien", {"dog"}}));  // tie: by piece
  EXPECT_EQ(s.lists[2], (std::pair<std::string, Pieces>{"le", {"the"}}));
}

TEST(ShortlistBuilder, CooccurrenceRanksByDice) {
  ShortlistBuilder b;
  b.add_pair({"le", "chat"}, {"the", "cat"});
  b.add_pair({"le", "chien"}, {"the", "dog"});
  b.add_pair({"un", "chat", "chat"}, {"a", "cat"});  // counted once per sentence pair
  const Shortlist s = b.build(ShortlistSource::cooccurrence, 2, 0);
  EXPECT_TRUE(s.frequent.empty());
  // chat: c=2; cat 2*2/(2+2) = 1, the 2*1/(2+2) = 0.5, a 2*1/(2+1) = 0.67.
  EXPECT_EQ(s.lists[0], (std::pair<std::string, Pieces>{"chat", {"cat", "a"}}));
  // le: c=2; the 2*2/4 = 1, cat 2/4, dog 2/(2+1).
  const auto le =
      std::find_if(s.lists.begin(), s.lists.end(), [](const auto& l) { return l.first == "le"; });
  ASSERT_NE(le, s.lists.end());
  EXPECT_EQ(le->second, (Pieces{"the", "dog"}));
}

// Multi30k's German training text has a TAB inside one line, which the tokenizer passes through
// as a piece of its own: the file cannot hold it (nor can any vocabulary), so the builder
// leaves it out, counts it, and the shortlist is written (it used to be refused at the end).
TEST(ShortlistBuilder, PiecesTheFileCannotHoldAreLeftOutAndCounted) {
  ShortlistBuilder b;
  b.add_pair({"le", "chat"}, {"the", "\t", "cat"});
  b.add_pair({"le\tx", "chat"}, {"the", "cat\n", ""});
  b.add_link("le", "\t");
  b.add_link("chat", "cat");
  b.add_link("\r", "cat");
  EXPECT_EQ(b.unlistable(), 5u);  // "\t", "le\tx", "cat\n", "", "\r"
  for (const ShortlistSource from : {ShortlistSource::attention, ShortlistSource::cooccurrence}) {
    const Shortlist s = b.build(from, 3, 5);
    EXPECT_EQ(s.frequent, (Pieces{"the", "cat"}));
    for (const auto& [source, targets] : s.lists) {
      EXPECT_EQ(source.find_first_of("\t\n\r"), std::string::npos);
      for (const auto& t : targets) EXPECT_EQ(t.find_first_of("\t\n\r"), std::string::npos);
    }
    TempDir tmp;
    const std::string path = tmp.file("s.shortlist");
    write_shortlist(path, s);
    EXPECT_EQ(read_shortlist(path).lists, s.lists);
  }
}

TEST(ShortlistIndex, UnionPerBatchAndSkippedPieces) {
  const Vocabulary src = Vocabulary::from_tokens({"le", "chat", "noir"});        // 4 5 6
  const Vocabulary tgt = Vocabulary::from_tokens({"the", "cat", "black", "a"});  // 4 5 6 7
  Shortlist s;
  s.top_k = 2;
  s.frequent = {"a", "zebra"};
  s.lists = {{"le", {"the"}}, {"chat", {"cat", "kitten"}}, {"hund", {"dog"}}};
  const ShortlistIndex index(s, src, tgt);
  EXPECT_EQ(index.skipped_sources(), 1u);  // hund
  EXPECT_EQ(index.skipped_targets(), 2u);  // zebra, kitten
  EXPECT_EQ(index.target_vocab(), 8u);
  EXPECT_EQ(index.batch_ids(std::vector<std::int32_t>{}),
            (std::vector<std::int32_t>{0, 1, 2, 3, 7}));
  EXPECT_EQ(index.batch_ids(std::vector<std::int32_t>{5, 6, 2, 0}),
            (std::vector<std::int32_t>{0, 1, 2, 3, 5, 7}));
  EXPECT_EQ(index.batch_ids(std::vector<std::int32_t>{4, 5, 2}),
            (std::vector<std::int32_t>{0, 1, 2, 3, 4, 5, 7}));
  EXPECT_THROW(index.batch_ids(std::vector<std::int32_t>{7}), Error);
}

}  // namespace
}  // namespace heed
