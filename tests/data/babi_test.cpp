#include "heed/data/babi.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>

#include "data/temp_dir.h"
#include "heed/base/error.h"
#include "support/babi_moves.h"

namespace heed {
namespace {
using testing::TempDir;
using Words = std::vector<std::string>;
using Story = std::vector<Words>;
using Positions = std::vector<std::size_t>;

// The message of the heed::Error that fn throws ("" when it throws none).
template <typename Fn>
std::string error_of(Fn fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

std::vector<BabiQuestion> parse(const std::string& text, int task = 0) {
  std::istringstream in(text);
  return parse_babi(in, "t.txt", task);
}

std::string parse_error(const std::string& text) {
  return error_of([&] { parse(text); });
}

// bAbI's own example (its README): two stories, questions between the statements.
const char* const kExample =
    "1 Mary moved to the bathroom.\n"
    "2 John went to the hallway.\n"
    "3 Where is Mary? \tbathroom\t1\n"
    "4 Daniel went back to the hallway.\n"
    "5 Sandra moved to the garden.\n"
    "6 Where is Daniel? \thallway\t4\n"
    "7 John moved to the office.\n"
    "8 Sandra journeyed to the bathroom.\n"
    "9 Where is Daniel? \thallway\t4\n"
    "10 Mary moved to the hallway.\n"
    "11 Daniel travelled to the office.\n"
    "12 Where is Daniel? \toffice\t11\n"
    "13 John went back to the garden.\n"
    "14 John moved to the bedroom.\n"
    "15 Where is Sandra? \tbathroom\t8\n"
    "1 Sandra travelled to the office.\n"
    "2 Sandra went to the bathroom.\n"
    "3 Where is Sandra? \tbathroom\t2\n";

TEST(ParseBabi, WorkedExample) {
  const auto qs = parse(kExample, 1);
  ASSERT_EQ(qs.size(), 6u);
  const Words mary_bathroom{"mary", "moved", "to", "the", "bathroom"};
  const Words john_hallway{"john", "went", "to", "the", "hallway"};
  const Words daniel_hallway{"daniel", "went", "back", "to", "the", "hallway"};
  const Words sandra_garden{"sandra", "moved", "to", "the", "garden"};
  const BabiQuestion& q = qs[0];
  EXPECT_EQ(q.task, 1);
  EXPECT_EQ(q.file, "t.txt");
  EXPECT_EQ(q.line, 3u);
  EXPECT_EQ(q.story, (Story{mary_bathroom, john_hallway}));
  EXPECT_EQ(q.question, (Words{"where", "is", "mary"}));
  EXPECT_EQ(q.answer, "bathroom");
  EXPECT_EQ(q.supporting, Positions{0});
  // Question lines are not statements: ID 4 is the story's third statement.
  EXPECT_EQ(qs[1].line, 6u);
  EXPECT_EQ(qs[1].story, (Story{mary_bathroom, john_hallway, daniel_hallway, sandra_garden}));
  EXPECT_EQ(qs[1].supporting, Positions{2});
  EXPECT_EQ(qs[2].story.size(), 6u);
  EXPECT_EQ(qs[2].supporting, Positions{2});
  EXPECT_EQ(qs[3].line, 12u);
  EXPECT_EQ(qs[3].story.size(), 8u);
  EXPECT_EQ(qs[3].supporting, Positions{7});  // ID 11
  EXPECT_EQ(qs[3].story[7], (Words{"daniel", "travelled", "to", "the", "office"}));
  EXPECT_EQ(qs[3].answer, "office");
  EXPECT_EQ(qs[4].story.size(), 10u);
  EXPECT_EQ(qs[4].supporting, Positions{5});  // ID 8
  EXPECT_EQ(qs[4].story[5], (Words{"sandra", "journeyed", "to", "the", "bathroom"}));
  // The ID 1 on line 16 starts a new story: nothing of the first one is in it.
  EXPECT_EQ(qs[5].line, 18u);
  EXPECT_EQ(qs[5].story, (Story{Words{"sandra", "travelled", "to", "the", "office"},
                                Words{"sandra", "went", "to", "the", "bathroom"}}));
  EXPECT_EQ(qs[5].question, (Words{"where", "is", "sandra"}));
  EXPECT_EQ(qs[5].supporting, Positions{1});
}

TEST(ParseBabi, TaskIsZeroUnlessGiven) {
  EXPECT_EQ(parse(kExample)[0].task, 0);
  EXPECT_EQ(parse(kExample, 20)[5].task, 20);
  EXPECT_EQ(error_of([] { parse(kExample, 21); }),
            "t.txt: bAbI task 21, expected 1..20 (0: not known)");
}

TEST(ParseBabi, WordsAreLowercasedWithoutTheirFinalMark) {
  const auto qs = parse(
      "1 The Office is EAST of the Hallway.\n"
      "2 Mary said: wow?! Hi! ÉCOLE . Mr. Smith's\n"
      "3 What is Mary carrying ?\tFootball\t2 1\n");
  ASSERT_EQ(qs.size(), 1u);
  EXPECT_EQ(qs[0].story, (Story{Words{"the", "office", "is", "east", "of", "the", "hallway"},
                                Words{"mary", "said:", "wow?", "hi", "école", "mr", "smith's"}}));
  EXPECT_EQ(qs[0].question, (Words{"what", "is", "mary", "carrying"}));  // the lone '?' dropped
  EXPECT_EQ(qs[0].answer, "football");
  EXPECT_EQ(qs[0].supporting, (Positions{1, 0}));  // in the order given
}

TEST(ParseBabi, ListAnswersAreKeptWhole) {
  const auto qs = parse(
      "1 The kitchen is north of the hallway.\n"
      "2 The garden is west of the kitchen.\n"
      "3 How do you go from the hallway to the garden?\tN,W \t1  2\n"
      "4 Mary picked up the apple.\n"
      "5 Mary got the milk there.\n"
      "6 What is Mary carrying?\t apple,milk\t4 5\n");
  ASSERT_EQ(qs.size(), 2u);
  EXPECT_EQ(qs[0].answer, "n,w");
  EXPECT_EQ(qs[0].supporting, (Positions{0, 1}));
  EXPECT_EQ(qs[1].answer, "apple,milk");
  EXPECT_EQ(qs[1].story.size(), 4u);
  EXPECT_EQ(qs[1].supporting, (Positions{2, 3}));
}

TEST(ParseBabi, AQuestionMarkOrATabMakesAQuestion) {
  // A TAB makes a question even without '?'; a question's line is never a statement.
  const auto qs = parse(
      "1 Mary went to the garden.\n"
      "2 Is Mary in the garden\tyes\t1\n"
      "3 Mary went to the office.\n"
      "4 Where is Mary?\toffice\t3\n");
  ASSERT_EQ(qs.size(), 2u);
  EXPECT_EQ(qs[0].question, (Words{"is", "mary", "in", "the", "garden"}));
  EXPECT_EQ(qs[1].story.size(), 2u);
  EXPECT_EQ(qs[1].supporting, Positions{1});
}

TEST(ParseBabi, AcceptsCrlfAByteOrderMarkAndNoFinalNewline) {
  const auto qs = parse(
      "\xEF\xBB\xBF"
      "1 Mary went to the garden.\r\n2 Where is Mary?\tgarden\t1\r\n");
  ASSERT_EQ(qs.size(), 1u);
  EXPECT_EQ(qs[0].story, (Story{Words{"mary", "went", "to", "the", "garden"}}));
  EXPECT_EQ(qs[0].answer, "garden");
  EXPECT_EQ(parse("1 A b.\n2 Where?\tb\t1").size(), 1u);
}

TEST(BabiWords, OneStatementAsParseBabiReadsIt) {
  EXPECT_EQ(babi_words("Mary went to the Kitchen."), (Words{"mary", "went", "to", "the", "kitchen"}));
  EXPECT_EQ(babi_words("  Where is  ÉMILE ? "), (Words{"where", "is", "émile"}));
  EXPECT_EQ(babi_words("wow?! Mr. Smith's\tdog!"), (Words{"wow?", "mr", "smith's", "dog"}));
  EXPECT_EQ(babi_words(""), Words{});
  EXPECT_EQ(babi_words(" . ? ! "), Words{});
  // The same words as a story line of parse_babi.
  const auto qs = parse("1 Mary said: wow?! Hi! ÉCOLE . Mr. Smith's\n2 Where?\tx\t1\n");
  EXPECT_EQ(qs[0].story[0], babi_words("Mary said: wow?! Hi! ÉCOLE . Mr. Smith's"));
}

TEST(IsBabiQuestion, ATabOrAFinalQuestionMark) {
  EXPECT_TRUE(is_babi_question("Where is Mary?"));
  EXPECT_TRUE(is_babi_question("Where is Mary ?  \r"));
  EXPECT_TRUE(is_babi_question("Is Mary in the garden\tyes\t1"));
  EXPECT_TRUE(is_babi_question("\t"));
  EXPECT_FALSE(is_babi_question("Mary went to the garden."));
  EXPECT_FALSE(is_babi_question("Why? Mary went."));
  EXPECT_FALSE(is_babi_question(""));
}

TEST(ParseBabi, StatementsAfterTheLastQuestionAreRead) {
  const auto qs = parse("1 A b.\n2 Where?\tb\t1\n3 C d.\n1 E f.\n");
  ASSERT_EQ(qs.size(), 1u);
  EXPECT_EQ(qs[0].line, 2u);
}

TEST(ParseBabi, ALineWithoutAnIdIsAnError) {
  const std::string expected =
      "t.txt:2: expected 'ID text' (the line's number in its story, a space, the text), got '";
  EXPECT_EQ(parse_error("1 A b.\nMary went home.\n"), expected + "Mary went home.'");
  EXPECT_EQ(parse_error("1 A b.\n\n2 Where?\tb\t1\n"), expected + "'");
  EXPECT_EQ(parse_error("1 A b.\n 2 C d.\n"), expected + " 2 C d.'");
  EXPECT_EQ(parse_error("1 A b.\n2\tWhere?\tb\t1\n"), expected + "2\tWhere?\tb\t1'");
  EXPECT_EQ(parse_error("1 A b.\n2x C d.\n"), expected + "2x C d.'");
  // A long line is shortened to its first 40 bytes.
  EXPECT_EQ(parse_error("1 A b.\nThis line is far too long to be quoted in full here.\n"),
            expected + "This line is far too long to be quoted i...'");
}

TEST(ParseBabi, AnIdMustFollowThePreviousOneOrStartAStory) {
  EXPECT_EQ(parse_error("2 A b.\n3 Where?\tb\t2\n"),
            "t.txt:1: ID 2 at the start, expected 1 (the first line of a story)");
  EXPECT_EQ(parse_error("1 A b.\n3 Where?\tb\t1\n"),
            "t.txt:2: ID 3 after ID 1, expected 2 (the story's next line) or 1 (a new story)");
  EXPECT_EQ(parse_error("1 A b.\n2 C d.\n2 Where?\tb\t1\n"),
            "t.txt:3: ID 2 after ID 2, expected 3 (the story's next line) or 1 (a new story)");
  EXPECT_EQ(parse_error("1 A b.\n0 Where?\tb\t1\n"),
            "t.txt:2: ID 0 after ID 1, expected 2 (the story's next line) or 1 (a new story)");
  EXPECT_EQ(parse_error("1 A b.\n99999999999999999999999 C d.\n"),
            "t.txt:2: ID 99999999999999999999999 after ID 1, expected 2 (the story's next "
            "line) or 1 (a new story)");
}

TEST(ParseBabi, AStatementNeedsWords) {
  EXPECT_EQ(parse_error("1 A b.\n2\n"),
            "t.txt:2: no words after ID 2, expected a statement ('ID text') or a question "
            "(ID question<TAB>answer<TAB>supporting fact ids)");
  EXPECT_EQ(parse_error("1 A b.\n2 . \n"),
            "t.txt:2: no words after ID 2, expected a statement ('ID text') or a question "
            "(ID question<TAB>answer<TAB>supporting fact ids)");
}

TEST(ParseBabi, AQuestionLineNeedsBothFields) {
  const std::string expected =
      ", expected 'ID question<TAB>answer<TAB>supporting fact ids' (the answer and the "
      "supporting facts after the question, each after a TAB)";
  EXPECT_EQ(parse_error("1 A b.\n2 Where is Mary? \n"),
            "t.txt:2: a question line with no TAB" + expected);
  EXPECT_EQ(parse_error("1 A b.\n2 Where is Mary?\tgarden\n"),
            "t.txt:2: a question line with one TAB" + expected);
  EXPECT_EQ(parse_error("1 A b.\n2 Where is Mary?\tgarden\t1\t\n"),
            "t.txt:2: a question line with 3 TABs" + expected);
}

TEST(ParseBabi, EmptyQuestionAnswerOrSupportingFactsAreErrors) {
  EXPECT_EQ(parse_error("1 A b.\n2 ?\tb\t1\n"),
            "t.txt:2: an empty question, expected its words before the first TAB ('ID "
            "question<TAB>answer<TAB>supporting fact ids')");
  EXPECT_EQ(parse_error("1 A b.\n2 Where?\t \t1\n"),
            "t.txt:2: an empty answer, expected the answer between the two TABs ('ID "
            "question<TAB>answer<TAB>supporting fact ids')");
  EXPECT_EQ(parse_error("1 A b.\n2 Where?\tb\t \n"),
            "t.txt:2: no supporting fact ids after the second TAB, expected the IDs of the "
            "statements that give the answer ('ID question<TAB>answer<TAB>supporting fact ids')");
}

TEST(ParseBabi, ASupportingFactIdMustBeANumber) {
  const std::string expected =
      "' is not a number, expected the ID of a statement of this story before the question";
  EXPECT_EQ(parse_error("1 A b.\n2 Where?\tb\tone\n"),
            "t.txt:2: supporting fact id 'one" + expected);
  EXPECT_EQ(parse_error("1 A b.\n2 C d.\n3 Where?\tb\t1,2\n"),
            "t.txt:3: supporting fact id '1,2" + expected);
  EXPECT_EQ(parse_error("1 A b.\n2 Where?\tb\t-1\n"), "t.txt:2: supporting fact id '-1" + expected);
  EXPECT_EQ(parse_error("1 A b.\n2 Where?\tb\t1 +1\n"),
            "t.txt:2: supporting fact id '+1" + expected);
}

TEST(ParseBabi, ASupportingFactMustBeAStatementOfTheStoryBeforeTheQuestion) {
  const std::string points =
      " points to no line of this story before the question, expected "
      "the ID of a statement in ";
  // A later line, the question itself, and ID 0.
  EXPECT_EQ(parse_error("1 A b.\n2 C d.\n3 Where?\tb\t4\n4 E f.\n"),
            "t.txt:3: supporting fact 4" + points + "1..2");
  EXPECT_EQ(parse_error("1 A b.\n2 C d.\n3 Where?\tb\t3\n"),
            "t.txt:3: supporting fact 3" + points + "1..2");
  EXPECT_EQ(parse_error("1 A b.\n2 Where?\tb\t0\n"),
            "t.txt:2: supporting fact 0" + points + "1..1");
  // The previous story's lines are outside this one.
  EXPECT_EQ(parse_error("1 A b.\n2 C d.\n3 E f.\n4 Where?\tb\t3\n1 G h.\n2 Where?\th\t3\n"),
            "t.txt:6: supporting fact 3" + points + "1..1");
  EXPECT_EQ(parse_error("1 Where?\tb\t1\n"),
            "t.txt:1: supporting fact 1" + points + "(none: the question starts the story)");
  // A question line is no statement.
  EXPECT_EQ(parse_error("1 A b.\n2 Where?\tb\t1\n3 C d.\n4 Where?\td\t2\n"),
            "t.txt:4: supporting fact 2 is a question line, expected the ID of a statement of "
            "this story before the question");
}

TEST(ParseBabi, InvalidUtf8NamesLineAndColumn) {
  EXPECT_EQ(parse_error("1 A b.\n2 Mary went to the K\xe4"
                        "che.\n"),
            "t.txt:2:21: invalid UTF-8 (byte 0xe4); the file must be UTF-8 text");
  // Columns count the file's bytes, the byte order mark too.
  EXPECT_EQ(parse_error("\xEF\xBB\xBF"
                        "1 A\xff b.\n"),
            "t.txt:1:7: invalid UTF-8 (byte 0xff); the file must be UTF-8 text");
  EXPECT_EQ(parse_error("1 A b.\n2 Where?\tb\xc3\t1\n"),
            "t.txt:2:11: invalid UTF-8 (byte 0xc3); the file must be UTF-8 text");
}

TEST(ParseBabi, InputWithoutAQuestionIsAnError) {
  const std::string expected =
      "t.txt: no question, expected bAbI text: statements 'ID text' and questions 'ID "
      "question<TAB>answer<TAB>supporting fact ids'";
  EXPECT_EQ(parse_error(""), expected);
  EXPECT_EQ(parse_error("1 Mary went to the garden.\n2 John went to the office.\n"), expected);
}

TEST(ReadBabiFile, ReadsAFileNamedByItsPath) {
  TempDir dir;
  const std::string path = dir.write("qa1_x_train.txt", kExample);
  const auto qs = read_babi_file(path, 1);
  ASSERT_EQ(qs.size(), 6u);
  EXPECT_EQ(qs[2].file, path);
  EXPECT_EQ(qs[2].line, 9u);
  EXPECT_EQ(qs[2].task, 1);
  const std::string bad = dir.write("bad.txt", "1 A b.\n3 C d.\n");
  EXPECT_EQ(error_of([&] { read_babi_file(bad); }),
            bad + ":2: ID 3 after ID 1, expected 2 (the story's next line) or 1 (a new story)");
}

TEST(ReadBabiFile, AMissingFileOrADirectoryIsAnError) {
  TempDir dir;
  const std::string missing = dir.file("missing.txt");
  EXPECT_EQ(error_of([&] { read_babi_file(missing); }),
            missing + ": cannot open for reading (No such file or directory)");
  EXPECT_EQ(error_of([&] { read_babi_file(dir.file("")); }),
            dir.file("") + ": is a directory, expected a bAbI text file");
}

TEST(BabiTaskFile, FindsTheTasksFileOfASplit) {
  TempDir dir;
  for (const char* name :
       {"qa1_single-supporting-fact_train.txt", "qa1_single-supporting-fact_test.txt",
        "qa10_indefinite-knowledge_train.txt", "qa2_x_train.txt", "qa2_y_train.txt",
        "qa3_train.txt", "qa4_x_train.txt.orig", "README.txt"})
    dir.write(name, "");
  std::filesystem::create_directories(dir.file("qa4_folder_train.txt"));
  EXPECT_EQ(babi_task_file(dir.file(""), 1, "train"),
            dir.file("qa1_single-supporting-fact_train.txt"));
  EXPECT_EQ(babi_task_file(dir.file(""), 1, "test"),
            dir.file("qa1_single-supporting-fact_test.txt"));
  EXPECT_EQ(babi_task_file(dir.file(""), 10, "train"),
            dir.file("qa10_indefinite-knowledge_train.txt"));
  const std::string d = dir.file("");
  EXPECT_EQ(error_of([&] { babi_task_file(d, 10, "test"); }),
            d + ": no file for bAbI task 10, split test, expected one named qa10_<name>_test.txt");
  EXPECT_EQ(error_of([&] { babi_task_file(d, 2, "train"); }),
            d + ": 2 files (qa2_x_train.txt, qa2_y_train.txt) for bAbI task 2, split train, "
                "expected one named qa2_<name>_train.txt");
  // qa3_train.txt has no name between the task and the split; a folder is no file.
  EXPECT_EQ(error_of([&] { babi_task_file(d, 3, "train"); }),
            d + ": no file for bAbI task 3, split train, expected one named qa3_<name>_train.txt");
  EXPECT_EQ(error_of([&] { babi_task_file(d, 4, "train"); }),
            d + ": no file for bAbI task 4, split train, expected one named qa4_<name>_train.txt");
}

TEST(BabiTaskFile, BadArgumentsAndAMissingDirectoryAreErrors) {
  TempDir dir;
  EXPECT_EQ(error_of([&] { babi_task_file(dir.file(""), 0, "train"); }),
            "bAbI task 0, expected 1..20");
  EXPECT_EQ(error_of([&] { babi_task_file(dir.file(""), 21, "train"); }),
            "bAbI task 21, expected 1..20");
  EXPECT_EQ(error_of([&] { babi_task_file(dir.file(""), 1, "dev"); }),
            "bAbI split 'dev', expected train or test");
  const std::string missing = dir.file("nowhere");
  EXPECT_EQ(error_of([&] { babi_task_file(missing, 5, "test"); }),
            missing +
                ": not a directory, looking for bAbI task 5, split test, expected one "
                "named qa5_<name>_test.txt in it");
}

TEST(ParseBabiTasks, AllListsAndRanges) {
  EXPECT_EQ(parse_babi_tasks("all"), (std::vector<int>{1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                                       11, 12, 13, 14, 15, 16, 17, 18, 19, 20}));
  EXPECT_EQ(parse_babi_tasks("1-20"), parse_babi_tasks("all"));
  EXPECT_EQ(parse_babi_tasks("1,2,5-7"), (std::vector<int>{1, 2, 5, 6, 7}));
  EXPECT_EQ(parse_babi_tasks(" 7, 3 ,1 - 2 "), (std::vector<int>{1, 2, 3, 7}));
  EXPECT_EQ(parse_babi_tasks("20"), (std::vector<int>{20}));
  EXPECT_EQ(parse_babi_tasks("4-4"), (std::vector<int>{4}));
}

TEST(ParseBabiTasks, ErrorsQuoteTheTextAndSayWhatIsExpected) {
  const std::string expected =
      "; expected \"all\" or a comma list of task numbers and ranges in 1..20, such as "
      "\"1,2,5-7\"";
  const auto error = [](std::string_view text) {
    return error_of([&] { parse_babi_tasks(text); });
  };
  EXPECT_EQ(error(""), "bAbI tasks \"\": empty" + expected);
  EXPECT_EQ(error("0"), "bAbI tasks \"0\": task 0 is outside 1..20" + expected);
  EXPECT_EQ(error("1-21"), "bAbI tasks \"1-21\": task 21 is outside 1..20" + expected);
  EXPECT_EQ(error("one"), "bAbI tasks \"one\": 'one' is not a task number" + expected);
  EXPECT_EQ(error("ALL"), "bAbI tasks \"ALL\": 'ALL' is not a task number" + expected);
  EXPECT_EQ(error("all,1"), "bAbI tasks \"all,1\": 'all' is not a task number" + expected);
  EXPECT_EQ(error("1,,2"), "bAbI tasks \"1,,2\": an empty item between commas" + expected);
  EXPECT_EQ(error("1,"), "bAbI tasks \"1,\": an empty item between commas" + expected);
  EXPECT_EQ(error("1-"), "bAbI tasks \"1-\": '' is not a task number" + expected);
  EXPECT_EQ(error("1-2-3"), "bAbI tasks \"1-2-3\": '2-3' is not a task number" + expected);
  EXPECT_EQ(error("-3"), "bAbI tasks \"-3\": '' is not a task number" + expected);
  EXPECT_EQ(error("7-5"), "bAbI tasks \"7-5\": the range 7-5 runs backwards" + expected);
  EXPECT_EQ(error("3,1,3"), "bAbI tasks \"3,1,3\": task 3 is given twice" + expected);
  EXPECT_EQ(error("1-3,2"), "bAbI tasks \"1-3,2\": task 2 is given twice" + expected);
}

// Questions of tasks 1, 2 and 7 in that order: 60, 15 and 30 of them.
std::vector<BabiQuestion> three_tasks() {
  std::vector<BabiQuestion> all;
  for (auto [task, stories] : {std::pair{1, 20}, std::pair{2, 5}, std::pair{7, 10}}) {
    std::istringstream in(testing::babi_moves_text(stories, 10 + task));
    for (auto& q : parse_babi(in, "qa" + std::to_string(task), task)) all.push_back(std::move(q));
  }
  return all;
}

using Key = std::tuple<int, std::string, std::size_t>;
Key key(const BabiQuestion& q) { return {q.task, q.file, q.line}; }
std::vector<Key> keys(const std::vector<BabiQuestion>& qs) {
  std::vector<Key> k;
  for (const auto& q : qs) k.push_back(key(q));
  return k;
}
std::size_t count_task(const std::vector<BabiQuestion>& qs, int task) {
  return static_cast<std::size_t>(
      std::count_if(qs.begin(), qs.end(), [&](const BabiQuestion& q) { return q.task == task; }));
}

TEST(SplitBabiValidation, TakesRoundedFractionOfEachTask) {
  const auto input = three_tasks();
  ASSERT_EQ(input.size(), 105u);
  const BabiSplit split = split_babi_validation(input, 0.25, 7);
  // round(60 / 4) = 15, round(3.75) = 4, round(7.5) = 8 (halves away from zero).
  EXPECT_EQ(count_task(split.dev, 1), 15u);
  EXPECT_EQ(count_task(split.dev, 2), 4u);
  EXPECT_EQ(count_task(split.dev, 7), 8u);
  EXPECT_EQ(count_task(split.train, 1), 45u);
  EXPECT_EQ(count_task(split.train, 2), 11u);
  EXPECT_EQ(count_task(split.train, 7), 22u);
}

TEST(SplitBabiValidation, DisjointKeepsOrderAndCoversTheInput) {
  const auto input = three_tasks();
  const BabiSplit split = split_babi_validation(input, 0.1, 7);
  const auto train = keys(split.train), dev = keys(split.dev), all = keys(input);
  EXPECT_TRUE(std::is_sorted(train.begin(), train.end(), [&](const Key& a, const Key& b) {
    return std::find(all.begin(), all.end(), a) < std::find(all.begin(), all.end(), b);
  }));
  EXPECT_TRUE(std::is_sorted(dev.begin(), dev.end(), [&](const Key& a, const Key& b) {
    return std::find(all.begin(), all.end(), a) < std::find(all.begin(), all.end(), b);
  }));
  std::set<Key> seen(train.begin(), train.end());
  for (const Key& k : dev) EXPECT_TRUE(seen.insert(k).second) << "in both: line " << std::get<2>(k);
  EXPECT_EQ(seen, std::set<Key>(all.begin(), all.end()));
  EXPECT_EQ(split.train.size() + split.dev.size(), input.size());
  // The questions travel whole.
  for (const auto& q : split.dev) {
    const auto it = std::find_if(input.begin(), input.end(),
                                 [&](const BabiQuestion& p) { return key(p) == key(q); });
    ASSERT_NE(it, input.end());
    EXPECT_EQ(q.story, it->story);
    EXPECT_EQ(q.answer, it->answer);
    EXPECT_EQ(q.supporting, it->supporting);
  }
}

TEST(SplitBabiValidation, DeterministicBySeedAndTheSameForATaskAlone) {
  const auto input = three_tasks();
  const auto a = keys(split_babi_validation(input, 0.2, 7).dev);
  EXPECT_EQ(a, keys(split_babi_validation(input, 0.2, 7).dev));
  EXPECT_NE(a, keys(split_babi_validation(input, 0.2, 8).dev));
  // Task 7 split on its own gives the same dev questions as task 7 split among the others.
  std::vector<BabiQuestion> seven;
  for (const auto& q : input)
    if (q.task == 7) seven.push_back(q);
  std::vector<Key> a7;
  for (const Key& k : a)
    if (std::get<0>(k) == 7) a7.push_back(k);
  EXPECT_EQ(keys(split_babi_validation(seven, 0.2, 7).dev), a7);
}

TEST(SplitBabiValidation, FractionZeroAndBadFractions) {
  const auto input = three_tasks();
  const BabiSplit split = split_babi_validation(input, 0.0, 7);
  EXPECT_TRUE(split.dev.empty());
  EXPECT_EQ(keys(split.train), keys(input));
  EXPECT_TRUE(split_babi_validation({}, 0.5, 7).train.empty());
  EXPECT_EQ(error_of([&] { split_babi_validation(input, 1.0, 7); }),
            "the bAbI validation fraction must be in [0, 1), got 1");
  EXPECT_EQ(error_of([&] { split_babi_validation(input, -0.1, 7); }),
            "the bAbI validation fraction must be in [0, 1), got -0.1");
  EXPECT_EQ(
      error_of([&] { split_babi_validation(input, std::numeric_limits<double>::quiet_NaN(), 7); }),
      "the bAbI validation fraction must be in [0, 1), got nan");
}

// The generated task of the fast tests, read by parse_babi: each question's supporting fact is
// the asked person's last move, to the place that is the answer.
TEST(BabiMoves, ParseBabiReadsItAndTheSupportingFactsAreRight) {
  const testing::BabiMovesOptions options;  // 4 people, 5 places, 3 questions, 2-8 statements
  const std::string text = testing::babi_moves_text(50, 3);
  const auto qs = parse(text, 1);
  ASSERT_EQ(qs.size(), 150u);
  const std::set<std::string> people{"mary", "john", "sandra", "daniel"};
  const std::set<std::string> places{"kitchen", "garden", "hallway", "bathroom", "office"};
  std::set<std::string> people_seen, places_seen;
  for (std::size_t i = 0; i < qs.size(); ++i) {
    const BabiQuestion& q = qs[i];
    SCOPED_TRACE("question on line " + std::to_string(q.line));
    ASSERT_EQ(q.question.size(), 3u);
    EXPECT_EQ(q.question[0], "where");
    EXPECT_EQ(q.question[1], "is");
    const std::string& who = q.question[2];
    people_seen.insert(who);
    places_seen.insert(q.answer);
    ASSERT_EQ(q.supporting.size(), 1u);
    ASSERT_LT(q.supporting[0], q.story.size());
    const Words& fact = q.story[q.supporting[0]];
    EXPECT_EQ(fact.front(), who);
    EXPECT_EQ(fact.back(), q.answer);
    EXPECT_EQ(fact[fact.size() - 2], "the");
    for (std::size_t s = q.supporting[0] + 1; s < q.story.size(); ++s)
      EXPECT_NE(q.story[s].front(), who) << "a later move of " << who;
    // 2..8 new statements before each question; a story starts every third question.
    const std::size_t before = i % 3 == 0 ? 0 : qs[i - 1].story.size();
    EXPECT_GE(q.story.size(), before + static_cast<std::size_t>(options.min_statements));
    EXPECT_LE(q.story.size(), before + static_cast<std::size_t>(options.max_statements));
    if (i % 3 != 0) {
      EXPECT_EQ(q.line, qs[i - 1].line + (q.story.size() - before) + 1);
    }
  }
  EXPECT_EQ(people_seen, people);
  EXPECT_EQ(places_seen, places);
}

TEST(BabiMoves, WrittenInBabisFormat) {
  const std::string text = testing::babi_moves_text(2, 5);
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);
  EXPECT_TRUE(line.starts_with("1 ")) << line;
  EXPECT_TRUE(line.ends_with(".")) << line;
  const std::size_t tab = text.find('\t');
  ASSERT_NE(tab, std::string::npos);
  EXPECT_EQ(text.substr(text.rfind('\n', tab) + 1).find(" Where is "), 1u);  // "N Where is X? \t"
  EXPECT_EQ(text.substr(tab - 2, 3), "? \t");
  EXPECT_EQ(text.back(), '\n');
}

TEST(BabiMoves, DeterministicBySeedAndOptionsApply) {
  EXPECT_EQ(testing::babi_moves_text(10, 1), testing::babi_moves_text(10, 1));
  EXPECT_NE(testing::babi_moves_text(10, 1), testing::babi_moves_text(10, 2));
  EXPECT_EQ(testing::babi_moves_text(0, 1), "");
  testing::BabiMovesOptions o;
  o.people = 8;
  o.places = 8;
  o.questions_per_story = 1;
  o.min_statements = o.max_statements = 5;
  const auto qs = parse(testing::babi_moves_text(200, 9, o));
  ASSERT_EQ(qs.size(), 200u);
  std::set<std::string> places;
  std::set<std::string> people;
  for (std::size_t i = 0; i < qs.size(); ++i) {
    EXPECT_EQ(qs[i].story.size(), 5u);
    EXPECT_EQ(qs[i].line, 6 * i + 6);  // five statements and the question, story after story
    places.insert(qs[i].answer);
    people.insert(qs[i].question.back());
  }
  EXPECT_EQ(people.size(), 8u);
  EXPECT_EQ(places.size(), 8u);
  o.people = 9;
  EXPECT_EQ(error_of([&] { testing::babi_moves_text(1, 1, o); }),
            "babi_moves_text: people 9, expected 1..8");
}

}  // namespace
}  // namespace heed
