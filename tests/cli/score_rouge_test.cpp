// End to end: `heed score --metric rouge` through the built binary, on the hand-worked cases
// of tests/metrics/rouge_test.cpp.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>

#include "cli/cli_test_util.h"

namespace heed::testing {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

struct Files {
  std::string ref, ref2, hyp;
};

// Segment 1: the cat sat on the mat / the cat was on the mat; segment 2: the gunman was
// killed by police / police killed the gunman (rouge_test.cpp works them out). ref2 holds the
// hypothesis itself for segment 1 and nothing for segment 2.
Files write_corpus(const ScratchDir& d) {
  return {d.file("ref", "The cat was on the mat\npolice killed the gunman\n"),
          d.file("ref2", "the cat sat on the mat\n\n"),
          d.file("hyp", "The cat sat on the mat.\nthe gunman was killed by police\n")};
}

TEST(ScoreRouge, LineAndScoreOnly) {
  ScratchDir d("rouge");
  const Files f = write_corpus(d);
  auto r = run_heed("score -m rouge -r " + f.ref + " --hyp " + f.hyp);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "ROUGE-1 = 81.67 ROUGE-2 = 42.50 ROUGE-L = 61.67 (F1; P = 75.00/40.00/58.33 "
            "R = 91.67/46.67/66.67; segments = 2 refs = 1 stem = no)\n");
  EXPECT_EQ(run_heed("score -m rouge -b -r " + f.ref + " < " + f.hyp).output, "81.67 42.50 61.67\n");
  // Two references: segment 1 now matches ref2 exactly (1 on every measure); segment 2 keeps
  // ref's values, its empty line in ref2 skipped.
  r = run_heed("score -m rouge -r " + f.ref + " -r " + f.ref2 + " --hyp " + f.hyp);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "ROUGE-1 = 90.00 ROUGE-2 = 62.50 ROUGE-L = 70.00 (F1; P = 83.33/60.00/66.67 "
            "R = 100.00/66.67/75.00; segments = 2 refs = 2 stem = no)\n");
}

TEST(ScoreRouge, Stemming) {
  ScratchDir d("rouge_stem");
  const auto ref = d.file("ref", "cat runs quick\n");
  const auto hyp = d.file("hyp", "Cats running quickly\n");
  EXPECT_EQ(run_heed("score -m rouge -b -r " + ref + " --hyp " + hyp).output, "0.00 0.00 0.00\n");
  // Stemmed: cat run quickli against cat run quick: 2 of 3 words, 1 of 2 bigrams, LCS 2.
  auto r = run_heed("score -m rouge --stem -r " + ref + " --hyp " + hyp);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "ROUGE-1 = 66.67 ROUGE-2 = 50.00 ROUGE-L = 66.67 (F1; P = 66.67/50.00/66.67 "
            "R = 66.67/50.00/66.67; segments = 1 refs = 1 stem = porter)\n");
  // --stem belongs to rouge.
  r = run_heed("score -m bleu --stem -r " + ref + " --hyp " + hyp);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--stem applies to --metric rouge only, not bleu")) << r.output;
}

TEST(ScoreRouge, BootstrapGivesThreeIntervals) {
  ScratchDir d("rouge_boot");
  // Two equal segments: every resample has the same mean, so each interval is one point.
  const auto ref = d.file("ref", "The cat was on the mat\nThe cat was on the mat\n");
  const auto hyp = d.file("hyp", "The cat sat on the mat.\nThe cat sat on the mat.\n");
  auto r = run_heed("score -m rouge -r " + ref + " --hyp " + hyp + " --bootstrap 100");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "\n95% CI: ROUGE-1 [83.33, 83.33] ROUGE-2 [60.00, 60.00] "
                                 "ROUGE-L [83.33, 83.33] (bootstrap, 100 resamples, seed 12345)\n"))
      << r.output;
  r = run_heed("score -m rouge -b -r " + ref + " --hyp " + hyp + " --bootstrap 100");
  EXPECT_EQ(r.output, "83.33 60.00 83.33\n83.33 83.33 60.00 60.00 83.33 83.33\n");
}

TEST(ScoreRouge, ByLengthTableAndJson) {
  ScratchDir d("rouge_len");
  const Files f = write_corpus(d);
  const auto src = d.file("src", "a b c\nd e f g h i j k l m n o\n");  // 3 and 12 words
  auto r = run_heed("score -m rouge -r " + f.ref + " --hyp " + f.hyp + " --by-length " + src +
                    " --buckets 10 --bootstrap 50");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "ROUGE-1, ROUGE-2 and ROUGE-L by source length (words), 95% "
                                 "bootstrap CI:\nlength" + std::string(7, ' ') +
                                 "n  ROUGE-1  95% CI"))
      << r.output;
  // One segment a bucket: zero-width intervals at the segment's own values.
  EXPECT_TRUE(contains(r.output, "\n1-10" + std::string(9, ' ') +
                                     "1    83.33  [83.33, 83.33]      60.00  [60.00, 60.00]      "
                                     "83.33  [83.33, 83.33]\n"))
      << r.output;
  const auto json = d.path("len.json");
  r = run_heed("score -m rouge --stem -r " + f.ref + " --hyp " + f.hyp + " --by-length " + src +
               " --buckets 10 --bootstrap 50 --json " + json);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(std::ifstream(json));
  EXPECT_EQ(j["metric"], "rouge");
  EXPECT_EQ(j["score_name"], "ROUGE-1");
  EXPECT_EQ(j["stem"], true);
  EXPECT_DOUBLE_EQ(j["corpus"]["score"].get<double>(), 81.6667);
  EXPECT_DOUBLE_EQ(j["corpus"]["rouge2"].get<double>(), 42.5);
  EXPECT_DOUBLE_EQ(j["corpus"]["rougeL"].get<double>(), 61.6667);
  EXPECT_DOUBLE_EQ(j["buckets"][1]["rougeL_lower"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(j["buckets"][1]["rouge2_upper"].get<double>(), 25.0);
  // heed plot draws it, on the ROUGE-1 axis.
  r = run_heed("plot --by-length " + json + " --out " + d.path("fig.svg"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(ScoreRouge, SegmentWithoutAReferenceIsRefused) {
  ScratchDir d("rouge_err");
  const auto ref = d.file("ref", "a b\n\n");
  const auto hyp = d.file("hyp", "a b\nc\n");
  auto r = run_heed("score -m rouge -r " + ref + " --hyp " + hyp);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "ROUGE: segment 2 has no non-empty reference")) << r.output;
}

}  // namespace
}  // namespace heed::testing
