#include "heed/metrics/aer.h"

#include <gtest/gtest.h>

#include "heed/base/error.h"

namespace heed::metrics {
namespace {

using Links = std::vector<AlignmentLink>;

TEST(Pharaoh, SureAndPossibleForms) {
  // Sorted by target then source, repeats dropped; a link both sure and possible is sure.
  const auto a = parse_pharaoh(" 2-1 0-0\t1?2 3-4-P 0-0 5-5-S 2?1 ", "gold:1", false);
  EXPECT_EQ(a.sure, (Links{{0, 0}, {2, 1}, {5, 5}}));
  EXPECT_EQ(a.possible, (Links{{1, 2}, {3, 4}}));
  EXPECT_TRUE(parse_pharaoh("", "gold:2", false).sure.empty());
}

TEST(Pharaoh, OneBasedPositionsAreShifted) {
  const auto a = parse_pharaoh("1-1 2?3 3-2-P", "gold:1", true);
  EXPECT_EQ(a.sure, (Links{{0, 0}}));
  EXPECT_EQ(a.possible, (Links{{2, 1}, {1, 2}}));
}

TEST(Pharaoh, BadLinksNameTheFileLineAndToken) {
  for (const char* bad : {"0-", "-1", "a-1", "1-2-Q", "1?2-P", "1--2", "1-2-3", "12", "-1-2",
                          "1.5-2", "99999999999-1"}) {
    try {
      parse_pharaoh(std::string("0-0 ") + bad, "gold.txt:7", false);
      FAIL() << bad;
    } catch (const Error& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("gold.txt:7: bad alignment link '" + std::string(bad) + "'"),
                std::string::npos)
          << m;
      EXPECT_NE(m.find("0-based"), std::string::npos) << m;
    }
  }
  // 0 is not a 1-based position.
  EXPECT_THROW(parse_pharaoh("0-1", "g:1", true), Error);
}

TEST(Pharaoh, FormatsZeroBasedInTheOrderGiven) {
  EXPECT_EQ(format_pharaoh({{0, 0}, {3, 1}, {2, 1}}), "0-0 3-1 2-1");
  EXPECT_EQ(format_pharaoh({}), "");
}

// The measures on worked cases (Och and Ney 2003's definitions, P including S).
TEST(Aer, WorkedCases) {
  // Gold S = {0-0, 1-1}, P = S + {2-2, 3-3}; hypothesis A = {0-0, 1-2, 2-2, 3-3}:
  // |A n S| = 1, |A n P| = 3: precision 3/4, recall 1/2, AER = 1 - 4/6.
  AerCounts c;
  add_aer_counts(c, parse_pharaoh("0-0 1-1 2?2 3-3-P", "g", false),
                 parse_pharaoh("0-0 1-2 2-2 3-3", "h", false));
  EXPECT_EQ(c.hyp, 4u);
  EXPECT_EQ(c.sure, 2u);
  EXPECT_EQ(c.hyp_sure, 1u);
  EXPECT_EQ(c.hyp_possible, 3u);
  AerScore s = aer_score(c);
  EXPECT_DOUBLE_EQ(s.precision, 0.75);
  EXPECT_DOUBLE_EQ(s.recall, 0.5);
  EXPECT_DOUBLE_EQ(s.aer, 1.0 - 4.0 / 6.0);

  // The gold sure links alone: AER 0 (every possible link may be left out).
  AerCounts exact;
  add_aer_counts(exact, parse_pharaoh("0-0 1-1 2?2", "g", false),
                 parse_pharaoh("1-1 0-0", "h", false));
  EXPECT_DOUBLE_EQ(aer_score(exact).aer, 0.0);
  EXPECT_DOUBLE_EQ(aer_score(exact).recall, 1.0);

  // Nothing right: AER 1.
  AerCounts wrong;
  add_aer_counts(wrong, parse_pharaoh("0-0", "g", false), parse_pharaoh("1-1", "h", false));
  EXPECT_DOUBLE_EQ(aer_score(wrong).aer, 1.0);
  EXPECT_DOUBLE_EQ(aer_score(wrong).precision, 0.0);

  // Corpus sums, not a mean of sentence AERs: sentence 2 has 3 sure links all found.
  AerCounts corpus = wrong;
  add_aer_counts(corpus, parse_pharaoh("0-0 1-1 2-2", "g", false),
                 parse_pharaoh("0-0 1-1 2-2", "h", false));
  EXPECT_DOUBLE_EQ(aer_score(corpus).aer, 1.0 - 6.0 / 8.0);
}

TEST(Aer, StatsTableScoresInPercentAndNamesBadLines) {
  const auto t = aer_stats({"0-0 1-2 2-2 3-3", "0-0"}, "hyp.txt", false,
                           {"1-1 2-2 3?3 4-4-P", "1-1"}, "gold.txt", true);
  EXPECT_EQ(t.rows(), 2u);
  // Line 1 as in WorkedCases (the gold is 1-based); line 2: one sure link found.
  EXPECT_DOUBLE_EQ(t.score(), 100.0 * (1.0 - (2.0 + 4.0) / (5.0 + 3.0)));
  const auto m = aer_from_sums(t.column_sums());
  EXPECT_DOUBLE_EQ(m.precision, 4.0 / 5.0);
  EXPECT_DOUBLE_EQ(m.recall, 2.0 / 3.0);
  try {
    aer_stats({"0-0", "0-0 0-x"}, "hyp.txt", false, {"1-1", "1-1"}, "gold.txt", true);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hyp.txt:2: bad alignment link '0-x'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(aer_stats({"0-0"}, "hyp.txt", false, {"1-1", "1-1"}, "gold.txt", true), Error);
}

TEST(Aer, NoLinksOnEitherSideIsUndefinedNotZero) {
  // |A| + |S| = 0: AER is 0/0. It used to print as 0.00, a perfect score.
  try {
    aer_stats({"", ""}, "hyp.txt", false, {"", "0?1"}, "gold.txt", false);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("AER is undefined: hyp.txt has no link and gold.txt no "
                                         "sure link"),
              std::string::npos)
        << e.what();
  }
  // Hypothesis links alone define it (precision against the possible links).
  EXPECT_DOUBLE_EQ(aer_stats({"0-1"}, "h", false, {"0?1"}, "g", false).score(), 0.0);
}

}  // namespace
}  // namespace heed::metrics
