// The real bAbI tasks v1.2 (en/: 1,000 training and 1,000 test questions per task; en-10k/:
// 10,000 training questions per task, the same test files, and no training file for task 3
// in the copy the project develops with), read by the bAbI reader. The data stays outside the
// repository: HEED_BABI_DIR names the directory holding en/ and en-10k/, by default the
// shared data directory beside the checkout; the tests skip when it is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <set>

#include "heed/base/error.h"
#include "heed/data/babi.h"

namespace heed {
namespace {
namespace fs = std::filesystem;

fs::path babi_root() {
  if (const char* env = std::getenv("HEED_BABI_DIR")) return env;
  return fs::path(HEED_SOURCE_DIR).parent_path() / "shared" / "data" / "babi";
}

// What grep -c '<TAB>' counts: the question lines of a file.
std::size_t count_tab_lines(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) n += line.find('\t') != std::string::npos;
  return n;
}

struct TaskStats {
  std::size_t questions = 0, longest_story = 0, longest_statement = 0, longest_question = 0;
  std::set<std::string> words;
};

void check_and_count(const std::vector<BabiQuestion>& qs, int task, const std::string& path,
                     TaskStats& stats) {
  std::size_t previous_line = 0;
  for (const BabiQuestion& q : qs) {
    SCOPED_TRACE(path + ":" + std::to_string(q.line));
    EXPECT_EQ(q.task, task);
    EXPECT_EQ(q.file, path);
    EXPECT_GT(q.line, previous_line);
    previous_line = q.line;
    EXPECT_FALSE(q.story.empty());
    EXPECT_FALSE(q.question.empty());
    EXPECT_FALSE(q.answer.empty());
    EXPECT_FALSE(q.supporting.empty());
    for (std::size_t s : q.supporting) EXPECT_LT(s, q.story.size());
    // Task 1 (single supporting fact): "Where is Mary?" is answered by Mary's last move.
    if (task == 1) {
      const auto& fact = q.story[q.supporting.at(0)];
      EXPECT_EQ(fact.front(), q.question.back());
      EXPECT_EQ(fact.back(), q.answer);
    }
    if (task == 19) {
      EXPECT_NE(q.answer.find(','), std::string::npos) << q.answer;
    }
    stats.longest_story = std::max(stats.longest_story, q.story.size());
    stats.longest_question = std::max(stats.longest_question, q.question.size());
    for (const auto& statement : q.story) {
      stats.longest_statement = std::max(stats.longest_statement, statement.size());
      stats.words.insert(statement.begin(), statement.end());
    }
    stats.words.insert(q.question.begin(), q.question.end());
    stats.words.insert(q.answer);
  }
  stats.questions += qs.size();
}

// Reads every task's train and test file of one directory and checks the counts.
void read_all_tasks(const std::string& dir, std::size_t train_questions, bool lacks_task3_train) {
  if (!fs::is_directory(dir)) GTEST_SKIP() << dir << " is absent (set HEED_BABI_DIR)";
  std::cout << dir
            << "\n task  questions  longest story  longest statement  longest question  "
               "words\n";
  for (int task = 1; task <= 20; ++task) {
    TaskStats stats;
    for (const char* split : {"train", "test"}) {
      if (lacks_task3_train && task == 3 && std::string(split) == "train") {
        std::string message;
        try {
          babi_task_file(dir, task, split);
        } catch (const Error& e) {
          message = e.what();
        }
        EXPECT_NE(message.find("no file for bAbI task 3, split train"), std::string::npos)
            << message;
        continue;
      }
      const std::string path = babi_task_file(dir, task, split);
      const auto qs = read_babi_file(path, task);
      EXPECT_EQ(qs.size(), std::string(split) == "train" ? train_questions : 1000u) << path;
      EXPECT_EQ(qs.size(), count_tab_lines(path)) << path;
      check_and_count(qs, task, path, stats);
    }
    std::cout << std::setw(5) << task << std::setw(11) << stats.questions << std::setw(15)
              << stats.longest_story << std::setw(19) << stats.longest_statement << std::setw(18)
              << stats.longest_question << std::setw(7) << stats.words.size() << "\n";
  }
}

TEST(BabiData, ReadsEveryTaskOfEn) { read_all_tasks((babi_root() / "en").string(), 1000, false); }

TEST(BabiData, ReadsEveryTaskOfEn10k) {
  const fs::path dir = babi_root() / "en-10k";
  const bool lacks = !fs::exists(dir / "qa3_three-supporting-facts_train.txt");
  read_all_tasks(dir.string(), 10000, lacks);
}

// The test files of en/ and en-10k/ are the same, and the reader reads them alike.
TEST(BabiData, TestFilesOfEnAndEn10kAgree) {
  const fs::path en = babi_root() / "en", en10k = babi_root() / "en-10k";
  if (!fs::is_directory(en) || !fs::is_directory(en10k)) GTEST_SKIP() << "bAbI data absent";
  for (int task : parse_babi_tasks("all")) {
    const auto a = read_babi_file(babi_task_file(en.string(), task, "test"), task);
    const auto b = read_babi_file(babi_task_file(en10k.string(), task, "test"), task);
    ASSERT_EQ(a.size(), b.size()) << "task " << task;
    for (std::size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].line, b[i].line);
      ASSERT_EQ(a[i].story, b[i].story);
      ASSERT_EQ(a[i].question, b[i].question);
      ASSERT_EQ(a[i].answer, b[i].answer);
      ASSERT_EQ(a[i].supporting, b[i].supporting);
    }
  }
}

// A validation split of the real training questions: 10% of each task.
TEST(BabiData, ValidationSplitOfTheTrainingFiles) {
  const fs::path en = babi_root() / "en";
  if (!fs::is_directory(en)) GTEST_SKIP() << en << " is absent (set HEED_BABI_DIR)";
  std::vector<BabiQuestion> train;
  for (int task : parse_babi_tasks("1-3,19")) {
    auto qs = read_babi_file(babi_task_file(en.string(), task, "train"), task);
    train.insert(train.end(), qs.begin(), qs.end());
  }
  const BabiSplit split = split_babi_validation(train, 0.1, 1234);
  EXPECT_EQ(split.dev.size(), 400u);
  EXPECT_EQ(split.train.size(), 3600u);
  for (int task : {1, 2, 3, 19})
    EXPECT_EQ(std::count_if(split.dev.begin(), split.dev.end(),
                            [&](const BabiQuestion& q) { return q.task == task; }),
              100);
}

}  // namespace
}  // namespace heed
