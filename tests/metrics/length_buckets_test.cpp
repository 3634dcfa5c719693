#include "heed/metrics/length_buckets.h"

#include <gtest/gtest.h>

#include <cmath>

#include "heed/base/error.h"
#include "heed/base/random.h"
#include "heed/metrics/bleu.h"
#include "heed/metrics/wer.h"

namespace heed::metrics {
namespace {

std::vector<std::string> labels(const std::vector<LengthRange>& r) {
  std::vector<std::string> out;
  for (const auto& b : r) out.push_back(b.label());
  return out;
}

TEST(LengthBuckets, UpperEdgesEndInAnOpenBucket) {
  auto b = parse_length_buckets("10,20,30");
  EXPECT_EQ(labels(b), (std::vector<std::string>{"1-10", "11-20", "21-30", "31+"}));
  EXPECT_FALSE(b.back().hi.has_value());
  EXPECT_TRUE(b.back().contains(1000));
  EXPECT_TRUE(b[0].contains(1));
  EXPECT_TRUE(b[0].contains(10));
  EXPECT_FALSE(b[0].contains(11));
  EXPECT_FALSE(b[0].contains(0));
  EXPECT_EQ(labels(parse_length_buckets(" 5 ")), (std::vector<std::string>{"1-5", "6+"}));
  EXPECT_EQ(labels(parse_length_buckets("1,2")), (std::vector<std::string>{"1", "2", "3+"}));
}

TEST(LengthBuckets, ExplicitRangesAsWritten) {
  auto b = parse_length_buckets("1-10, 11-20,31-");
  EXPECT_EQ(labels(b), (std::vector<std::string>{"1-10", "11-20", "31+"}));
  EXPECT_EQ(b[2].lo, 31u);
  b = parse_length_buckets("3-3,4-8");
  EXPECT_EQ(labels(b), (std::vector<std::string>{"3", "4-8"}));  // closed: no open bucket added
  EXPECT_EQ(*b[1].hi, 8u);
}

TEST(LengthBuckets, BadSpecificationsAreErrors) {
  for (const char* bad : {"20,10", "10,10", "1-10,5-20", "1-,5-9", "a", "0,10", "10,,20", "1-10,20",
                          "10-1", "", "-5", "1-10,"}) {
    EXPECT_THROW(parse_length_buckets(bad), Error) << bad;
  }
  try {
    parse_length_buckets("1-10,5-20");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'5-20'"), std::string::npos) << e.what();
  }
}

TEST(LengthBuckets, WidthBucketsStopAtTheLongestSegment) {
  EXPECT_EQ(labels(width_buckets(10, 37)),
            (std::vector<std::string>{"1-10", "11-20", "21-30", "31+"}));
  EXPECT_EQ(labels(width_buckets(10, 30)), (std::vector<std::string>{"1-10", "11-20", "21+"}));
  EXPECT_EQ(labels(width_buckets(10, 31)),
            (std::vector<std::string>{"1-10", "11-20", "21-30", "31+"}));
  EXPECT_EQ(labels(width_buckets(5, 3)), (std::vector<std::string>{"1+"}));
  EXPECT_EQ(labels(width_buckets(1, 3)), (std::vector<std::string>{"1", "2", "3+"}));
  EXPECT_THROW(width_buckets(0, 3), Error);
}

TEST(LengthBuckets, SourceLengthInWordsAndCharacters) {
  EXPECT_EQ(source_length("  the cat\tsat  ", LengthUnit::words), 3u);
  EXPECT_EQ(source_length("", LengthUnit::words), 0u);
  EXPECT_EQ(source_length("cat", LengthUnit::chars), 3u);
  EXPECT_EQ(source_length("c a t", LengthUnit::chars), 3u);  // G2P sources written spaced
  EXPECT_EQ(source_length("\xc3\xa9t\xc3\xa9", LengthUnit::chars), 3u);  // "été": code points
  EXPECT_EQ(source_length("a\xff", LengthUnit::chars), 2u);              // an invalid byte is one
  EXPECT_EQ(enum_name(LengthUnit::chars), "chars");
}

TEST(LengthBuckets, BucketScoreIsTheScoreOfItsSegmentsAlone) {
  // Source lengths 2, 12, 3, 0, 15: buckets 1-10 = {0, 2}, 11+ = {1, 4}; segment 3 is in none.
  const std::vector<std::string> refs = {"a b c d", "e f", "g h i", "j", "k l m n o"};
  const std::vector<std::string> hyps = {"a b x d", "e f", "g", "j", "k l m n o"};
  const std::vector<std::size_t> lengths = {2, 12, 3, 0, 15};
  StatsTable t = wer_stats(hyps, refs);
  const auto buckets = parse_length_buckets("10");
  LengthBreakdown b = score_by_length(t, lengths, buckets, 200);
  ASSERT_EQ(b.buckets.size(), 2u);
  EXPECT_EQ(b.outside, 1u);
  EXPECT_EQ(b.buckets[0].n, 2u);
  EXPECT_EQ(b.buckets[1].n, 2u);
  // 1 substitution + 2 deletions over 4 + 3 reference words, computed by hand.
  EXPECT_DOUBLE_EQ(b.buckets[0].score, 300.0 / 7.0);
  EXPECT_DOUBLE_EQ(b.buckets[0].score, corpus_wer({"a b x d", "g"}, {"a b c d", "g h i"}));
  EXPECT_DOUBLE_EQ(b.buckets[1].score, 0.0);

  // BLEU: the bucket's score equals corpus BLEU over that bucket's sentences scored alone.
  const std::vector<std::string> brefs = {"the cat sat on the mat", "a dog ran in the park today",
                                          "hello world", "it is raining in paris tonight"};
  const std::vector<std::string> bhyps = {"the cat sat on a mat", "a dog ran in park today",
                                          "hello there world", "it rains in paris tonight"};
  std::vector<std::vector<std::string>> per_seg;
  for (const auto& r : brefs) per_seg.push_back({r});
  StatsTable bt = bleu_stats(bhyps, per_seg);
  const std::vector<std::size_t> blen = {6, 20, 7, 25};
  const std::vector<LengthRange> two = {{1, 10}, {11, std::nullopt}};
  LengthBreakdown bb = score_by_length(bt, blen, two, 100);
  EXPECT_DOUBLE_EQ(bb.buckets[0].score,
                   corpus_bleu({bhyps[0], bhyps[2]}, {{brefs[0]}, {brefs[2]}}).score);
  EXPECT_DOUBLE_EQ(bb.buckets[1].score,
                   corpus_bleu({bhyps[1], bhyps[3]}, {{brefs[1]}, {brefs[3]}}).score);
  EXPECT_NE(bb.buckets[0].score, bt.score());
}

TEST(LengthBuckets, EmptyBucketsAreKeptWithoutAScore) {
  StatsTable t = wer_stats({"a", "b c"}, {"a", "b d"});
  const std::size_t lengths[] = {1, 25};
  const auto buckets = parse_length_buckets("10,20");  // 1-10, 11-20 (empty), 21+
  LengthBreakdown b = score_by_length(t, lengths, buckets, 50);
  ASSERT_EQ(b.buckets.size(), 3u);
  EXPECT_EQ(b.buckets[1].n, 0u);
  EXPECT_TRUE(std::isnan(b.buckets[1].score));
  EXPECT_TRUE(std::isnan(b.buckets[1].lower));
  EXPECT_TRUE(std::isnan(b.buckets[1].upper));
  EXPECT_EQ(b.buckets[1].range.label(), "11-20");
  EXPECT_DOUBLE_EQ(b.buckets[2].score, 50.0);
  EXPECT_EQ(b.outside, 0u);
  const std::size_t wrong[] = {1};
  EXPECT_THROW(score_by_length(t, wrong, buckets), Error);
}

TEST(LengthBuckets, IntervalsContainTheScoreAndRepeatWithTheSeed) {
  Rng rng(3);
  std::vector<std::string> refs, hyps;
  std::vector<std::size_t> lengths;
  for (int i = 0; i < 300; ++i) {
    const std::size_t len = 1 + rng.below(40);
    std::string r, h;
    for (std::size_t k = 0; k < len; ++k) {
      std::string w("w");
      w += std::to_string(rng.below(20));
      if (k) {
        r += ' ';
        h += ' ';
      }
      r += w;
      h += rng.uniform() < 0.7 ? w : std::string("x");
    }
    refs.push_back(r);
    hyps.push_back(h);
    lengths.push_back(len);
  }
  StatsTable t = wer_stats(hyps, refs);
  const auto buckets = width_buckets(10, 40);
  LengthBreakdown a = score_by_length(t, lengths, buckets, 300, 7);
  LengthBreakdown b = score_by_length(t, lengths, buckets, 300, 7);
  LengthBreakdown c = score_by_length(t, lengths, buckets, 300, 8);
  std::size_t total = 0;
  bool differs = false;
  for (std::size_t i = 0; i < a.buckets.size(); ++i) {
    const auto& x = a.buckets[i];
    ASSERT_GT(x.n, 10u);
    total += x.n;
    EXPECT_LE(x.lower, x.score);
    EXPECT_GE(x.upper, x.score);
    EXPECT_LT(x.lower, x.upper);  // 20+ segments of noisy output: a real interval
    EXPECT_EQ(x.lower, b.buckets[i].lower);
    EXPECT_EQ(x.upper, b.buckets[i].upper);
    differs |= x.lower != c.buckets[i].lower || x.upper != c.buckets[i].upper;
  }
  EXPECT_EQ(total, 300u);
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace heed::metrics
