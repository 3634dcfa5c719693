#pragma once
// The bAbI question-answering tasks (Weston et al. 2015) for memory networks: the text format
// of the 20 tasks' files read into questions, each with the story before it, its answer and
// the positions of its supporting facts; the file of a task in bAbI's directory; a task list
// ("all", "1,2,5-7"); and a validation set taken from the training questions of each task.
// Every problem is a heed::Error naming the file and the line (docs/DATA.md, "bAbI").
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <string_view>
#include <vector>

namespace heed {

struct BabiQuestion {
  int task = 0;          // 1..20; 0 when not known
  std::string file;      // where the question is, for messages
  std::size_t line = 0;  // its 1-based line in that file
  // The story's statements before the question, oldest first (questions are not
  // statements); words lowercased, the final '.', '?' or '!' of a word removed.
  std::vector<std::vector<std::string>> story;
  std::vector<std::string> question;  // its words, likewise
  // The answer field as written (blanks around it trimmed), lowercased; "n,w" is kept whole
  // (tasks 8 and 19 answer with lists).
  std::string answer;
  std::vector<std::size_t> supporting;  // 0-based positions in story of the supporting facts
};

// One statement's or question's words as bAbI's files are read: blank-separated, lowercased
// (base/utf8.h's to_lower), the final '.', '?' or '!' of a word removed (a word that was only
// that mark is dropped). No words for a blank text. parse_babi reads every line with it; the live page of
// heed serve reads a typed story with it too.
std::vector<std::string> babi_words(std::string_view text);

// Whether the text of a line (its ID removed) is a question as parse_babi decides: it holds a
// TAB, or its text ends in '?' (blanks after it ignored).
bool is_babi_question(std::string_view text);

// Parses bAbI text: "ID text" lines, "ID question<TAB>answer<TAB>supporting ids" for a question
// (ids separated by blanks). IDs start at 1 and grow by one; a 1 starts a new story. A line
// is a question when it holds a TAB or its text ends in '?'. "\r\n" line ends and a UTF-8 byte
// order mark are accepted. name is used in messages ("NAME:LINE: ..."). Throws heed::Error for
// a line without an ID (an empty line too) or without text after it, an ID that is neither 1
// nor the previous ID + 1, a question line without both fields (or with more), an empty
// question or answer, no supporting id, a supporting id that is not a number or points to no
// statement of this story before the question, invalid UTF-8, and input without a question.
std::vector<BabiQuestion> parse_babi(std::istream& in, const std::string& name, int task = 0);

// parse_babi of a file, named by its path; a missing or unreadable file is a heed::Error.
std::vector<BabiQuestion> read_babi_file(const std::string& path, int task = 0);

// The file of task (1..20) and split ("train" or "test") in dir: the one named
// qa<task>_<anything>_<split>.txt (bAbI's names, e.g. qa1_single-supporting-fact_train.txt).
// A heed::Error naming dir, the task and the split when there is none or more than one.
std::string babi_task_file(const std::string& dir, int task, std::string_view split);

// "all" (1..20) or a comma list of task numbers and ranges ("1,2,5-7"), each in 1..20, no
// task twice; blanks around the items are allowed. Returned sorted. A heed::Error quoting
// the text and saying what is expected otherwise.
std::vector<int> parse_babi_tasks(std::string_view text);

// A validation set taken from the training questions: of each task's questions (those with the
// same BabiQuestion::task), round(fraction * count) chosen at random go to dev, the rest stay
// in train. Both keep the input order. Task t draws from its own Rng(seed XOR
// 0x9e3779b97f4a7c15·t), so a task's split is the same whichever tasks are read with it.
// fraction must be in [0, 1).
struct BabiSplit {
  std::vector<BabiQuestion> train, dev;
};
BabiSplit split_babi_validation(std::vector<BabiQuestion> questions, double fraction,
                                std::uint64_t seed);

}  // namespace heed
