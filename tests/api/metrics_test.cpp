// The public scores (include/heed/metrics.h): worked cases whose values are known, the
// same numbers as `heed score` for the same files, and mismatched corpora refused.
#include <heed/metrics.h>
#include <heed/version.h>

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace heed {
namespace {

TEST(PublicMetrics, WorkedCases) {
  const std::vector<std::string> same = {"the cat sat on the mat", "a b c d e"};
  EXPECT_DOUBLE_EQ(bleu(same, same), 100.0);
  EXPECT_DOUBLE_EQ(chrf(same, same), 100.0);
  EXPECT_DOUBLE_EQ(wer(same, same), 0.0);
  // 1 substitution + 1 deletion over 4 reference words.
  EXPECT_DOUBLE_EQ(wer({"a b c"}, {"a x c d"}), 50.0);
  // A = {0-0, 1-1, 2-1}; S = {0-0, 1-2}; P = S + {1-1}: |A∩S| = 1, |A∩P| = 2, |A| = 3,
  // |S| = 2: AER = 1 - 3/5, precision 2/3, recall 1/2.
  const AlignmentScores s = aer({"0-0 1-1 2-1"}, {"0-0 1-2 1?1"});
  EXPECT_NEAR(s.aer, 0.4, 1e-12);
  EXPECT_NEAR(s.precision, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(s.recall, 0.5, 1e-12);
  // The same links 1-based.
  EXPECT_NEAR(aer({"1-1 2-2 3-2"}, {"1-1 2-3 2?2"}, true).aer, 0.4, 1e-12);
  // Two reference streams: the second matches, so BLEU is perfect.
  const std::vector<std::vector<std::string>> two = {{"x y z w v"}, {"a b c d e"}};
  EXPECT_DOUBLE_EQ(bleu({"a b c d e"}, two), 100.0);
}

TEST(PublicMetrics, AgreeWithTheScoreCommand) {
  testing::ScratchDir dir("heed_api");
  const std::vector<std::string> hyp = {"the cat is on the mat", "there is a cat here",
                                        "a dog barks loudly"};
  const std::vector<std::string> ref = {"the cat sat on the mat", "a cat is there",
                                        "the dog barks loud"};
  std::ofstream h(dir.path("hyp")), r(dir.path("ref"));
  for (std::size_t i = 0; i < hyp.size(); ++i) {
    h << hyp[i] << "\n";
    r << ref[i] << "\n";
  }
  h.close();
  r.close();
  const auto score = [&](const std::string& metric) {
    const auto out = testing::run_heed("score --metric " + metric + " --hyp " + dir.path("hyp") +
                                       " --ref " + dir.path("ref") + " --score-only");
    EXPECT_EQ(out.exit_code, 0) << out.output;
    return std::stod(out.output);
  };
  // The command prints two decimals.
  EXPECT_NEAR(bleu(hyp, ref), score("bleu"), 0.005);
  EXPECT_NEAR(chrf(hyp, ref), score("chrf"), 0.005);
  EXPECT_NEAR(wer(hyp, ref), score("wer"), 0.005);
  EXPECT_GT(bleu(hyp, ref), 5.0);  // not a degenerate case
  EXPECT_LT(bleu(hyp, ref), 95.0);
}

TEST(PublicMetrics, MismatchedCorporaAreErrors) {
  EXPECT_THROW(bleu({"a"}, std::vector<std::string>{"a", "b"}), Error);
  EXPECT_THROW(chrf({"a", "b"}, {"a"}), Error);
  EXPECT_THROW(wer({"a"}, {}), Error);
  EXPECT_THROW(aer({"0-0"}, {"0-0", "1-1"}), Error);
  EXPECT_THROW(aer({"0-x"}, {"0-0"}), Error);
  EXPECT_THROW(chrf({"a"}, {"a"}, 9), Error);
}

TEST(PublicVersion, LibraryAndHeadersAgree) {
  EXPECT_STREQ(version(), HEED_VERSION_STRING);
  EXPECT_EQ(std::to_string(HEED_VERSION_MAJOR) + "." + std::to_string(HEED_VERSION_MINOR) + "." +
                std::to_string(HEED_VERSION_PATCH),
            HEED_VERSION_STRING);
}

}  // namespace
}  // namespace heed
