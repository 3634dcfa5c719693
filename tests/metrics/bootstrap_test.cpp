#include "heed/metrics/bootstrap.h"

#include <gtest/gtest.h>

#include "heed/base/error.h"
#include "heed/base/random.h"
#include "heed/metrics/bleu.h"
#include "heed/metrics/wer.h"

namespace heed::metrics {
namespace {

// A synthetic corpus: references of random words, a "good" system that keeps most words
// and a "bad" one that keeps fewer.
struct Corpus {
  std::vector<std::string> refs, good, bad;
};

Corpus make_corpus(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Corpus c;
  for (std::size_t i = 0; i < n; ++i) {
    std::string ref, good, bad;
    std::size_t len = 5 + rng.below(10);
    for (std::size_t k = 0; k < len; ++k) {
      std::string w("w");
      w += std::to_string(rng.below(30));
      if (k) {
        ref.push_back(' ');
        good.push_back(' ');
        bad.push_back(' ');
      }
      ref.append(w);
      good.append(rng.uniform() < 0.8 ? w : std::string("x"));
      bad.append(rng.uniform() < 0.5 ? w : std::string("y"));
    }
    c.refs.push_back(ref);
    c.good.push_back(good);
    c.bad.push_back(bad);
  }
  return c;
}

std::vector<std::vector<std::string>> single(const std::vector<std::string>& refs) {
  std::vector<std::vector<std::string>> out;
  for (const auto& r : refs) out.push_back({r});
  return out;
}

TEST(Bootstrap, ConfidenceIntervalIsReproducibleAndBracketsTheScore) {
  Corpus c = make_corpus(200, 7);
  StatsTable t = bleu_stats(c.good, single(c.refs));
  ConfidenceInterval a = bootstrap_ci(t, 500, 42), b = bootstrap_ci(t, 500, 42);
  EXPECT_EQ(a.lower, b.lower);
  EXPECT_EQ(a.upper, b.upper);
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.samples, 500u);
  EXPECT_DOUBLE_EQ(a.score, t.score());
  EXPECT_LT(a.lower, a.score);
  EXPECT_GT(a.upper, a.score);
  EXPECT_NEAR(a.mean, a.score, 2.0);
  EXPECT_DOUBLE_EQ(a.half_width, 0.5 * (a.upper - a.lower));
  ConfidenceInterval other_seed = bootstrap_ci(t, 500, 43);
  EXPECT_NE(other_seed.mean, a.mean);
}

TEST(Bootstrap, IntervalUsesTheFortiethOrderStatistics) {
  // One segment per row with a "score" equal to the mean of column 0: resampled means of
  // a constant column are that constant.
  StatsTable t("mean", 2, [](std::span<const double> s) { return s[0] / s[1]; });
  for (int i = 0; i < 10; ++i) {
    const double row[2] = {3.0, 1.0};
    t.add_row(row);
  }
  ConfidenceInterval ci = bootstrap_ci(t, 100, 1);
  EXPECT_DOUBLE_EQ(ci.lower, 3.0);
  EXPECT_DOUBLE_EQ(ci.upper, 3.0);
  EXPECT_DOUBLE_EQ(ci.half_width, 0.0);
}

TEST(StatsTable, WithScoreKeepsTheRowsUnderAnotherScore) {
  StatsTable t("first", 2, [](std::span<const double> s) { return s[0]; });
  const double a[2] = {1.0, 10.0}, b[2] = {2.0, 20.0};
  t.add_row(a);
  t.add_row(b);
  const StatsTable second = t.with_score("second", [](std::span<const double> s) { return s[1]; });
  EXPECT_EQ(second.name(), "second");
  EXPECT_EQ(second.rows(), 2u);
  EXPECT_DOUBLE_EQ(second.row(1)[0], 2.0);
  EXPECT_DOUBLE_EQ(second.score(), 30.0);
  EXPECT_DOUBLE_EQ(t.score(), 3.0);  // the original keeps its own
  // Bootstrap draws depend only on the row count and the seed: the same segments for both.
  const ConfidenceInterval ci1 = bootstrap_ci(t, 50, 3), ci2 = bootstrap_ci(second, 50, 3);
  EXPECT_DOUBLE_EQ(ci2.lower, 10 * ci1.lower);
  EXPECT_DOUBLE_EQ(ci2.upper, 10 * ci1.upper);
}

TEST(Bootstrap, PairedTestSeparatesGoodFromBad) {
  Corpus c = make_corpus(200, 11);
  StatsTable good = bleu_stats(c.good, single(c.refs)), bad = bleu_stats(c.bad, single(c.refs));
  PairedBootstrapResult r = paired_bootstrap(bad, good, 1000, 12345);
  EXPECT_GT(r.difference, 10.0);
  EXPECT_LT(r.p_value, 0.01);
  EXPECT_DOUBLE_EQ(r.system_wins, 1.0);
  EXPECT_GT(r.system.lower, r.baseline.upper);
  // Same seed, same answer.
  PairedBootstrapResult again = paired_bootstrap(bad, good, 1000, 12345);
  EXPECT_EQ(again.p_value, r.p_value);
  EXPECT_EQ(again.system.mean, r.system.mean);
  // A system against itself: no difference, p = 1.
  PairedBootstrapResult self = paired_bootstrap(good, good, 200, 3);
  EXPECT_EQ(self.difference, 0.0);
  EXPECT_DOUBLE_EQ(self.p_value, 1.0);
  EXPECT_DOUBLE_EQ(self.system_wins, 0.0);
}

TEST(Bootstrap, WorksForErrorRatesAndSubsets) {
  Corpus c = make_corpus(100, 5);
  StatsTable wer = wer_stats(c.bad, c.refs);
  ConfidenceInterval ci = bootstrap_ci(wer, 300, 9);
  EXPECT_LT(ci.lower, ci.score);
  EXPECT_GT(ci.upper, ci.score);
  std::vector<std::size_t> first_half;
  for (std::size_t i = 0; i < 50; ++i) first_half.push_back(i);
  EXPECT_EQ(bootstrap_ci(wer.subset(first_half), 100, 9).samples, 100u);
}

TEST(Bootstrap, RejectsBadInput) {
  Corpus c = make_corpus(10, 1);
  StatsTable a = wer_stats(c.good, c.refs);
  StatsTable b = wer_stats({c.good[0]}, {c.refs[0]});
  EXPECT_THROW(paired_bootstrap(a, b), Error);
  EXPECT_THROW(bootstrap_ci(a, 0), Error);
  EXPECT_THROW(bootstrap_ci(a.subset({}), 10), Error);
}

}  // namespace
}  // namespace heed::metrics
