#include "heed/metrics/g2p.h"

#include <gtest/gtest.h>

#include "heed/base/error.h"

namespace heed::metrics {
namespace {

TEST(G2p, WordAndPhoneErrorRates) {
  const std::vector<std::string> hyps = {
      "K AE T",       // exact
      "D AO G",       // matches the second reference
      "B ER D Z",     // one insertion against "B ER D"
      "F IH SH"};     // distances 1 (vs F IH SH IH) and 2 (vs F EH SH EH): the first is closest
  const std::vector<std::vector<std::string>> refs = {
      {"K AE T"}, {"D AA G", "D AO G"}, {"B ER D"}, {"F EH SH EH", "F IH SH IH"}};
  G2pScore s = g2p_score(hyps, refs);
  EXPECT_EQ(s.entries, 4);
  EXPECT_EQ(s.wrong_entries, 2);
  EXPECT_NEAR(s.wer, 50.0, 1e-12);
  // PER: edits 0 + 0 + 1 + 1 over reference lengths 3 + 3 + 3 + 4 (the closest references).
  EXPECT_EQ(s.phone_edits, 2);
  EXPECT_EQ(s.ref_phones, 13);
  EXPECT_NEAR(s.per, 100.0 * 2 / 13, 1e-12);
}

TEST(G2p, TiesGoToTheFirstReference) {
  // "A B" is at distance 1 from both "A B C" (3 phones) and "A" (1 phone): the first wins.
  G2pScore s = g2p_score({"A B"}, {{"A B C", "A"}});
  EXPECT_EQ(s.ref_phones, 3);
  EXPECT_NEAR(s.per, 100.0 / 3, 1e-12);
  s = g2p_score({"A B"}, {{"A", "A B C"}});
  EXPECT_EQ(s.ref_phones, 1);
  EXPECT_NEAR(s.per, 100.0, 1e-12);
}

TEST(G2p, ReferenceLinesAndTables) {
  EXPECT_EQ(split_g2p_references("K AE T\tK AH T\t\t"), (std::vector<std::string>{"K AE T", "K AH T"}));
  const std::vector<std::string> hyps = {"A", "B C"};
  const std::vector<std::vector<std::string>> refs = {{"A"}, {"B D"}};
  StatsTable per = g2p_stats(hyps, refs, G2pMeasure::per);
  StatsTable wer = g2p_stats(hyps, refs, G2pMeasure::wer);
  EXPECT_NEAR(per.score(), 100.0 / 3, 1e-12);
  EXPECT_NEAR(wer.score(), 50.0, 1e-12);
  EXPECT_NEAR(wer.subset({0}).score(), 0.0, 1e-12);
  EXPECT_THROW(g2p_score({"A"}, {{"", " "}}), Error);
  EXPECT_THROW(g2p_score({"A", "B"}, {{"A"}}), Error);
}

}  // namespace
}  // namespace heed::metrics
