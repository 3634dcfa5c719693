#include <gtest/gtest.h>

#include "cli/cli_test_util.h"

namespace heed::testing {
namespace {

TEST(ScoreCommand, BleuChrfWerAndG2pFromFilesAndStdin) {
  ScratchDir d("score");
  auto ref = d.file("ref", "the cat sat on the mat\nhello world\n");
  auto hyp = d.file("hyp", "the cat sat on a mat\nhello world\n");
  auto r = run_heed("score -m bleu -r " + ref + " --hyp " + hyp);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // 7/8 unigrams, 4/6 bigrams, 2/4 trigrams, 1/2... hand-checked: 55.84 as sacreBLEU.
  EXPECT_EQ(r.output,
            "BLEU = 55.84 87.5/66.7/50.0/33.3 (BP = 1.000 ratio = 1.000 hyp_len = 8 ref_len = 8)\n");
  r = run_heed("score -m bleu -b -r " + ref + " < " + hyp);
  EXPECT_EQ(r.output, "55.84\n");
  r = run_heed("score -m wer -r " + ref + " --hyp " + hyp);
  EXPECT_EQ(r.output, "WER = 12.50\n");  // 1 substitution in 8 reference words
  r = run_heed("score -m chrf -b -r " + ref + " --hyp " + ref);
  EXPECT_EQ(r.output, "100.00\n");

  auto gref = d.file("gref", "K AE T\tK AA T\nD AO G\n");
  auto ghyp = d.file("ghyp", "K AA T\nD AA G\n");
  r = run_heed("score -m g2p -b -r " + gref + " --hyp " + ghyp);
  EXPECT_EQ(r.output, "50.00 16.67\n");  // 1 of 2 words wrong; 1 edit in 6 reference phones
}

TEST(ScoreCommand, LowercaseOption) {
  ScratchDir d("score_lc");
  auto ref = d.file("ref", "Hello World\n");
  auto hyp = d.file("hyp", "hello world\n");
  EXPECT_EQ(run_heed("score -m wer -b -r " + ref + " --hyp " + hyp).output, "100.00\n");
  EXPECT_EQ(run_heed("score -m wer -b --lowercase -r " + ref + " --hyp " + hyp).output, "0.00\n");
}

TEST(ScoreCommand, ErrorsAndExitCodes) {
  ScratchDir d("score_err");
  auto ref = d.file("ref", "a b\nc d\n");
  auto hyp = d.file("hyp", "a b\n");
  auto r = run_heed("score -m bleu -r " + ref + " --hyp " + hyp);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("has 2 lines but the hypotheses"), std::string::npos) << r.output;
  r = run_heed("score -m nope -r " + ref);
  EXPECT_EQ(r.exit_code, 2);
  r = run_heed("score -m bleu -r " + d.path("missing"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("missing"), std::string::npos);
  auto bad = d.file("bad", std::string("a \xff b\n"));
  r = run_heed("score -m wer -r " + ref + " --hyp " + bad);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.output.find("invalid UTF-8"), std::string::npos) << r.output;
  r = run_heed("score --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("--metric"), std::string::npos);
}

}  // namespace
}  // namespace heed::testing
