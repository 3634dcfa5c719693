// End to end: `heed data aeslc` through the built binary, on a small AESLC-like folder of
// invented emails that the test writes (never text of the corpus itself: it is CC BY-NC-SA
// and stays outside the project). Then `heed score --metric rouge` against its references.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/cli_test_util.h"
#include "heed/data/text_file.h"

namespace heed {
namespace {

using testing::run_heed;
using testing::ScratchDir;
using Lines = std::vector<std::string>;

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class DataAeslcCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(testing::heed_binary()))
      GTEST_SKIP() << testing::heed_binary() << " not built (ninja heed_cli)";
    // As the corpus lays them out: no newline at the end, blank lines between the parts.
    write_file(root_ / "train" / "kim_sent_2.subject",
               "Please send the  draft\nby noon.\n\n@subject\nDraft due");
    write_file(root_ / "train" / "ada_inbox_10.subject", "Lunch is at one.\n\n@subject\nLunch");
    write_file(root_ / "dev" / "lee_inbox_1.subject",
               "The server restarts tonight.\n\n@subject\nServer restart\n\n@ann0\nserver "
               "restart tonight\n\n@ann1\nmaintenance tonight\n\n@ann2\nServer downtime");
    write_file(root_ / "test" / "max_sent_5.subject",
               "Budget numbers attached,\tsee tab 2.\n\n@subject\nQ3 budget\n\n@ann0\nbudget "
               "numbers\n\n@ann1\nQ3 budget attached\n\n@ann2\nthe budget");
    write_file(root_ / "test" / "eve_inbox_3.subject",
               "Can we meet Tuesday?\n\n@subject\nMeeting\n\n@ann0\nmeeting on tuesday\n\n@ann1\n"
               "tuesday meeting\n\n@ann2\nmeeting request");
  }
  testing::CommandResult aeslc(const std::string& out) {
    return run_heed("data aeslc --aeslc '" + dir_.path("unpacked") + "' --out '" + dir_.path(out) + "'");
  }
  std::string out(const std::string& name) const { return dir_.path("o/" + name); }

  ScratchDir dir_{"heed_data_aeslc"};
  std::filesystem::path root_ = std::filesystem::path(dir_.path("unpacked")) / "enron_subject_line";
};

TEST_F(DataAeslcCommand, WritesSourcesTargetsAndReferences) {
  auto r = aeslc("o");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "read AESLC (" + root_.string() + "): 2 training, 1 dev and 2 test emails\n"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "  test       2 emails  body   5.0 words, subject  1.5 on average  " +
                                     out("test") + ".src, " + out("test") + ".tgt, " + out("test") +
                                     ".ref1..3\n"))
      << r.output;
  // Sorted by file name; bodies on one line with their whitespace collapsed.
  EXPECT_EQ(read_lines(out("train.src")), (Lines{"Lunch is at one.", "Please send the draft by noon."}));
  EXPECT_EQ(read_lines(out("train.tgt")), (Lines{"Lunch", "Draft due"}));
  EXPECT_EQ(read_lines(out("test.src")), (Lines{"Can we meet Tuesday?", "Budget numbers attached, see tab 2."}));
  EXPECT_EQ(read_lines(out("test.tgt")), (Lines{"Meeting", "Q3 budget"}));
  EXPECT_EQ(read_lines(out("test.ref2")), (Lines{"tuesday meeting", "Q3 budget attached"}));
  EXPECT_EQ(read_lines(out("dev.ref3")), (Lines{"Server downtime"}));
  EXPECT_FALSE(std::filesystem::exists(out("train.ref1")));

  // The test subjects scored against the three annotators' with ROUGE: "Meeting" is one of
  // three words of "meeting on tuesday" (P 1, R 1/3, F1 1/2), of "tuesday meeting" (F1 2/3,
  // the best), of "meeting request" (F1 2/3); "Q3 budget" is two of the three words of "Q3
  // budget attached" (F1 0.8): ROUGE-1 (2/3 + 0.8) / 2 = 73.33.
  r = run_heed("score -m rouge -b --hyp " + out("test.tgt") + " -r " + out("test.ref1") + " -r " +
               out("test.ref2") + " -r " + out("test.ref3"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.substr(0, 6), "73.33 ") << r.output;
}

TEST_F(DataAeslcCommand, CutsBodiesToTheirFirstWords) {
  auto r = run_heed("data aeslc --aeslc '" + dir_.path("unpacked") + "' --out '" + dir_.path("o") +
                    "' --max-body-words 3");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "5 bodies cut to their first 3 words\n")) << r.output;
  // Every body has more than three words.
  EXPECT_EQ(read_lines(out("train.src")), (Lines{"Lunch is at", "Please send the"}));
  EXPECT_EQ(read_lines(out("test.src")), (Lines{"Can we meet", "Budget numbers attached,"}));
  EXPECT_EQ(read_lines(out("dev.src")), (Lines{"The server restarts"}));
  EXPECT_EQ(read_lines(out("test.tgt")), (Lines{"Meeting", "Q3 budget"}));  // subjects whole
  r = run_heed("data aeslc --aeslc '" + dir_.path("unpacked") + "' --out '" + dir_.path("o") +
               "' --max-body-words -1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST_F(DataAeslcCommand, BadFilesAreRefusedAndNothingIsWritten) {
  // A test email missing @ann2: named with its line, and no output file written.
  write_file(root_ / "test" / "eve_inbox_3.subject",
             "Can we meet Tuesday?\n\n@subject\nMeeting\n\n@ann0\nmeeting on tuesday\n\n@ann1\n"
             "tuesday meeting\n");
  auto r = aeslc("o");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, (root_ / "test" / "eve_inbox_3.subject").string() +
                                     ":10: the file ends after @ann1 but a dev or test email needs @ann2 too"))
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(out("train.src")));
  // No @subject; an empty subject.
  write_file(root_ / "train" / "ada_inbox_10.subject", "Lunch is at one.\n");
  r = aeslc("o");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "ada_inbox_10.subject:1: the file ends without an @subject line")) << r.output;
  write_file(root_ / "train" / "ada_inbox_10.subject", "Lunch is at one.\n\n@subject\n\n");
  r = aeslc("o");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "ada_inbox_10.subject:3: @subject has no subject under it")) << r.output;
  // A folder without the three splits; --out naming a file; no --aeslc.
  std::filesystem::remove_all(root_ / "dev");
  r = aeslc("o");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, root_.string() + ": no dev/ folder")) << r.output;
  write_file(dir_.path("file"), "mine");
  r = run_heed("data aeslc --aeslc '" + dir_.path("unpacked") + "' --out '" + dir_.path("file") + "'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "exists and is not a directory")) << r.output;
  EXPECT_EQ(run_heed("data aeslc --out x").exit_code, 2);
}

}  // namespace
}  // namespace heed
