#include "heed/metrics/rouge.h"

#include <gtest/gtest.h>

#include "heed/base/error.h"

namespace heed::metrics {
namespace {

using Strings = std::vector<std::string>;

void expect_score(const RougeScore& s, double precision, double recall, double f1) {
  EXPECT_NEAR(s.precision, precision, 1e-12);
  EXPECT_NEAR(s.recall, recall, 1e-12);
  EXPECT_NEAR(s.f1, f1, 1e-12);
}

// The row of segment i of rouge_stats: P, R, F1 of ROUGE-1, ROUGE-2, ROUGE-L, then 1.
void expect_row(const StatsTable& t, std::size_t i, const std::vector<double>& expected) {
  ASSERT_EQ(t.width(), 10u);
  const auto row = t.row(i);
  for (std::size_t k = 0; k < 9; ++k) EXPECT_NEAR(row[k], expected[k], 1e-12) << "value " << k;
  EXPECT_EQ(row[9], 1.0);
}

TEST(Rouge, TokensAreLowercaseAsciiLettersAndDigits) {
  // Everything but a-z and 0-9 separates: the apostrophe, the dash, the accented letter
  // (dropped, as rouge-score drops it); the Kelvin sign lowercases to an ASCII k (Python's
  // str.lower()), so it stays.
  EXPECT_EQ(rouge_tokens("Don't STOP\xe2\x80\x94the 3rd caf\xc3\xa9! \xe2\x84\xaAm"),
            (Strings{"don", "t", "stop", "the", "3rd", "caf", "km"}));
  EXPECT_EQ(rouge_tokens("  \t"), Strings{});
  EXPECT_EQ(rouge_tokens("re: FW: Q3-report_v2"), (Strings{"re", "fw", "q3", "report", "v2"}));
}

TEST(Rouge, StemmingTouchesOnlyTokensLongerThanThreeCharacters) {
  RougeOptions stem;
  stem.stem = true;
  // "cats", "runs", "dogs" (4 characters) are stemmed; "ran" and "its" (3) are left as they are.
  EXPECT_EQ(rouge_tokens("Cats runs ran its dogs", stem),
            (Strings{"cat", "run", "ran", "its", "dog"}));
  EXPECT_EQ(rouge_tokens("Cats runs", {}), (Strings{"cats", "runs"}));
}

TEST(Rouge, HandWorkedSingleReference) {
  // the cat sat on the mat / the cat was on the mat: unigrams the x2, cat, on, mat match
  // (5 of 6 each side); bigrams the-cat, on-the, the-mat (3 of 5); LCS the cat on the mat (5).
  auto hyp = rouge_tokens("The cat sat on the mat.");
  auto ref = rouge_tokens("The cat was on the mat");
  expect_score(rouge_n(hyp, ref, 1), 5.0 / 6, 5.0 / 6, 5.0 / 6);
  expect_score(rouge_n(hyp, ref, 2), 0.6, 0.6, 0.6);
  expect_score(rouge_l(hyp, ref), 5.0 / 6, 5.0 / 6, 5.0 / 6);

  // Precision and recall apart: 6 hypothesis words against 4. Unigrams: 4 match, P 4/6, R 1,
  // F1 0.8. Bigrams: the-gunman only, P 1/5, R 1/3, F1 0.25. LCS "the gunman" (2): P 1/3,
  // R 1/2, F1 0.4.
  hyp = rouge_tokens("the gunman was killed by police");
  ref = rouge_tokens("police killed the gunman");
  expect_score(rouge_n(hyp, ref, 1), 4.0 / 6, 1.0, 0.8);
  expect_score(rouge_n(hyp, ref, 2), 0.2, 1.0 / 3, 0.25);
  expect_score(rouge_l(hyp, ref), 1.0 / 3, 0.5, 0.4);
  // Clipped counts: "the the the" against "the cat": 1 match of 3, of 2.
  expect_score(rouge_n(rouge_tokens("the the the"), rouge_tokens("the cat"), 1), 1.0 / 3, 0.5, 0.4);
}

TEST(Rouge, EmptyAndOneWordSides) {
  const auto one = rouge_tokens("budget");
  // A one-word subject equal to its reference has no bigram on either side: rouge-score
  // divides 0 matches by max(0, 1) and gives ROUGE-2 0, not 1.
  expect_score(rouge_n(one, one, 1), 1, 1, 1);
  expect_score(rouge_n(one, one, 2), 0, 0, 0);
  expect_score(rouge_l(one, one), 1, 1, 1);
  expect_score(rouge_n({}, one, 1), 0, 0, 0);
  expect_score(rouge_l({}, one), 0, 0, 0);
  expect_score(rouge_l(one, {}), 0, 0, 0);
  EXPECT_THROW(rouge_n(one, one, 0), Error);
}

TEST(Rouge, SeveralReferencesTakeTheBestF1PerMeasure) {
  // the red car stopped; ref 1 "car stopped the red": ROUGE-1 1/1/1, ROUGE-2 2/3 each (the-red,
  // car-stopped), ROUGE-L 1/2 each. Ref 2 "the red car": ROUGE-1 P 3/4 R 1 F1 6/7, ROUGE-2
  // P 2/3 R 1 F1 0.8, ROUGE-L P 3/4 R 1 F1 6/7. ROUGE-1 takes ref 1, the others ref 2.
  const auto t = rouge_stats({"the red car stopped"}, {{"car stopped the red", "the red car"}});
  expect_row(t, 0, {1, 1, 1, 2.0 / 3, 1, 0.8, 0.75, 1, 6.0 / 7});
  // The order of the references does not matter without ties...
  const auto swapped = rouge_stats({"the red car stopped"}, {{"the red car", "car stopped the red"}});
  expect_row(swapped, 0, {1, 1, 1, 2.0 / 3, 1, 0.8, 0.75, 1, 6.0 / 7});
  // ...and on a tie of F1 the first reference's precision and recall are kept (numpy's argmax):
  // "big dog" against "big dog runs far" (P 1, R 1/2) and "big" (P 1/2, R 1), both F1 2/3.
  const auto tie = rouge_stats({"big dog"}, {{"big dog runs far", "big"}});
  EXPECT_NEAR(tie.row(0)[0], 1.0, 1e-12);
  EXPECT_NEAR(tie.row(0)[1], 0.5, 1e-12);
  const auto tie_swapped = rouge_stats({"big dog"}, {{"big", "big dog runs far"}});
  EXPECT_NEAR(tie_swapped.row(0)[0], 0.5, 1e-12);
  EXPECT_NEAR(tie_swapped.row(0)[1], 1.0, 1e-12);
  // An empty reference is skipped; a segment with none left is an error naming it.
  expect_row(rouge_stats({"the red car stopped"}, {{"", "the red car"}}), 0,
             {0.75, 1, 6.0 / 7, 2.0 / 3, 1, 0.8, 0.75, 1, 6.0 / 7});
  try {
    rouge_stats({"a", "b"}, {{"a"}, {"", ""}});
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("segment 2 has no non-empty reference"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(rouge_stats({"a"}, {}), Error);
}

TEST(Rouge, CorpusIsTheMeanOfSegments) {
  // The two hand-worked segments above: the corpus values are their means, in percent;
  // F1 is the mean of the segments' F1, not the F1 of the mean precision and recall.
  const auto t = rouge_stats({"The cat sat on the mat.", "the gunman was killed by police"},
                             {{"The cat was on the mat"}, {"police killed the gunman"}});
  ASSERT_EQ(t.rows(), 2u);
  const auto sums = t.column_sums();
  const RougeScore r1 = rouge_from_sums(sums, RougeType::rouge1);
  expect_score(r1, 100 * (5.0 / 6 + 4.0 / 6) / 2, 100 * (5.0 / 6 + 1) / 2, 100 * (5.0 / 6 + 0.8) / 2);
  expect_score(rouge_from_sums(sums, RougeType::rouge2), 100 * (0.6 + 0.2) / 2,
               100 * (0.6 + 1.0 / 3) / 2, 100 * (0.6 + 0.25) / 2);
  expect_score(rouge_from_sums(sums, RougeType::rougeL), 100 * (5.0 / 6 + 1.0 / 3) / 2,
               100 * (5.0 / 6 + 0.5) / 2, 100 * (5.0 / 6 + 0.4) / 2);
  EXPECT_GT(std::abs(r1.f1 - 2 * r1.precision * r1.recall / (r1.precision + r1.recall)), 0.1);
  // The table's own score is ROUGE-1's F1; rouge_table rescores the same rows.
  EXPECT_NEAR(t.score(), 100 * (5.0 / 6 + 0.8) / 2, 1e-12);
  EXPECT_NEAR(rouge_table(t, RougeType::rouge2).score(), 42.5, 1e-12);
  EXPECT_NEAR(rouge_table(t, RougeType::rougeL).score(), 100 * (5.0 / 6 + 0.4) / 2, 1e-12);
  EXPECT_EQ(rouge_table(t, RougeType::rougeL).rows(), 2u);
  EXPECT_EQ(format_rouge(sums, 1, {}),
            "ROUGE-1 = 81.67 ROUGE-2 = 42.50 ROUGE-L = 61.67 (F1; P = 75.00/40.00/58.33 "
            "R = 91.67/46.67/66.67; segments = 2 refs = 1 stem = no)");
  // No segment at all (an empty length bucket): zeros, not a division by zero.
  expect_score(rouge_from_sums(std::vector<double>(10, 0.0), RougeType::rouge1), 0, 0, 0);
}

TEST(Rouge, StemmingMakesInflectionsMatch) {
  RougeOptions stem;
  stem.stem = true;
  // cats/cat, running/runs: no match as written, two of three once stemmed (quickly ->
  // quickli, quick stays: no match).
  const Strings hyp = {"Cats running quickly"};
  const std::vector<Strings> refs = {{"cat runs quick"}};
  EXPECT_NEAR(rouge_stats(hyp, refs).score(), 0.0, 1e-12);
  EXPECT_NEAR(rouge_stats(hyp, refs, stem).score(), 100 * 2.0 / 3, 1e-12);
}

}  // namespace
}  // namespace heed::metrics
