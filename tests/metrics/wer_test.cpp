#include "heed/metrics/wer.h"

#include <gtest/gtest.h>

#include "heed/base/error.h"
#include "heed/metrics/edit_distance.h"

namespace heed::metrics {
namespace {

using Strings = std::vector<std::string>;

TEST(EditDistance, HandCases) {
  EXPECT_EQ(edit_distance({}, {}), 0u);
  EXPECT_EQ(edit_distance({"a", "b"}, {}), 2u);
  EXPECT_EQ(edit_distance({}, {"a", "b", "c"}), 3u);
  EXPECT_EQ(edit_distance({"a", "b", "c"}, {"a", "b", "c"}), 0u);
  EXPECT_EQ(edit_distance({"a", "x", "c"}, {"a", "b", "c"}), 1u);       // substitution
  EXPECT_EQ(edit_distance({"a", "c"}, {"a", "b", "c"}), 1u);            // deletion
  EXPECT_EQ(edit_distance({"a", "b", "b", "c"}, {"a", "b", "c"}), 1u);  // insertion
  // kitten -> sitting, by characters: 3.
  EXPECT_EQ(edit_distance({"k", "i", "t", "t", "e", "n"}, {"s", "i", "t", "t", "i", "n", "g"}), 3u);
}

TEST(Wer, CorpusSumsEditsOverReferenceTokens) {
  // Segment 1: one substitution over 4 reference tokens; segment 2: two deletions over 2
  // tokens... corpus: (1 + 2) / (4 + 2) = 50%, not the mean of per-segment rates.
  EXPECT_NEAR(corpus_wer({"the cat sat down", ""}, {"the cat sat up", "hello world"}), 50.0, 1e-12);
  EXPECT_NEAR(corpus_wer({"a b c"}, {"a b c"}), 0.0, 1e-12);
  // Insertions can push WER past 100.
  EXPECT_NEAR(corpus_wer({"x y z w"}, {"a"}), 400.0, 1e-12);
  // Whitespace of any kind separates tokens.
  EXPECT_NEAR(corpus_wer({"  a\tb  c "}, {"a b c"}), 0.0, 1e-12);
}

TEST(Wer, Lowercase) {
  EXPECT_NEAR(corpus_wer({"Hello World"}, {"hello world"}), 100.0, 1e-12);
  WerOptions lc;
  lc.lowercase = true;
  EXPECT_NEAR(corpus_wer({"Hello WÖRLD"}, {"hello wörld"}, lc), 0.0, 1e-12);
}

TEST(Wer, StatsAndErrors) {
  StatsTable t = wer_stats({"a b", "c"}, {"a c", "c d"});
  EXPECT_EQ(t.rows(), 2u);
  EXPECT_EQ(t.row(0)[0], 1);
  EXPECT_EQ(t.row(0)[1], 2);
  EXPECT_NEAR(t.score(), 50.0, 1e-12);
  EXPECT_NEAR(t.subset({1}).score(), 50.0, 1e-12);
  EXPECT_THROW(corpus_wer({"a"}, {}), Error);
  EXPECT_THROW(corpus_wer({"a"}, {""}), Error);  // no reference token in the corpus
}

}  // namespace
}  // namespace heed::metrics
