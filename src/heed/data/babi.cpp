#include "heed/data/babi.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <istream>
#include <map>

#include "heed/base/error.h"
#include "heed/base/random.h"
#include "heed/base/utf8.h"

namespace heed {
namespace {

constexpr int kTasks = 20;
constexpr const char* kQuestionForm = "ID question<TAB>answer<TAB>supporting fact ids";

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  return s;
}

// The blank-separated pieces of s.
std::vector<std::string_view> split_blanks(std::string_view s) {
  std::vector<std::string_view> pieces;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_blank(s[i])) ++i;
    std::size_t start = i;
    while (i < s.size() && !is_blank(s[i])) ++i;
    if (i > start) pieces.push_back(s.substr(start, i - start));
  }
  return pieces;
}

// A string of digits as a number; false for anything else (a sign, an empty string, overflow).
bool parse_number(std::string_view s, std::size_t& value) {
  if (s.empty() || !std::all_of(s.begin(), s.end(), is_digit)) return false;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && end == s.data() + s.size();
}

// The start of a line for messages, so that a long one does not swamp them.
std::string excerpt(std::string_view line) {
  constexpr std::size_t kMax = 40;
  if (line.size() <= kMax) return std::string(line);
  std::size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80)
    --cut;  // whole code points
  return std::string(line.substr(0, cut)) + "...";
}

// One story as it is read: its statements so far, and for each ID of the story the position of
// its statement in them (-1 for a question line).
struct Story {
  std::vector<std::vector<std::string>> statements;
  std::vector<long> position_of_id;  // index ID - 1
};

class Parser {
 public:
  Parser(const std::string& name, int task) : name_(name), task_(task) {}

  // column_offset: the bytes before text on its line (a byte order mark), so that columns
  // count the file's bytes.
  void line(std::string_view text, std::size_t n, std::size_t column_offset) {
    line_ = n;
    if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
    std::size_t bad = find_invalid_utf8(text);
    HEED_CHECK(bad == std::string_view::npos, name_, ":", n, ":", bad + 1 + column_offset,
               ": invalid UTF-8 (byte 0x", std::hex,
               static_cast<unsigned>(
                   static_cast<unsigned char>(text[bad == std::string_view::npos ? 0 : bad])),
               std::dec, "); the file must be UTF-8 text");
    std::size_t digits = 0;
    while (digits < text.size() && is_digit(text[digits])) ++digits;
    std::size_t id = 0;
    HEED_CHECK(digits > 0 && (digits == text.size() || text[digits] == ' '), where(),
               "expected 'ID text' (the line's number in its story, a space, the text), got '",
               excerpt(text), "'");
    const std::string_view id_text = text.substr(0, digits);
    const std::string_view rest = text.substr(std::min(digits + 1, text.size()));
    const std::size_t expected = story_.position_of_id.size() + 1;
    HEED_CHECK(parse_number(id_text, id) && (id == 1 || id == expected), where(), "ID ", id_text,
               story_.position_of_id.empty()
                   ? std::string(" at the start, expected 1 (the first line of a story)")
                   : detail::concat(" after ID ", expected - 1, ", expected ", expected,
                                    " (the story's next line) or 1 (a new story)"));
    if (id == 1) story_ = {};
    if (is_babi_question(rest)) {
      question(rest);
      story_.position_of_id.push_back(-1);
    } else {
      std::vector<std::string> words = babi_words(rest);
      HEED_CHECK(!words.empty(), where(), "no words after ID ", id_text,
                 ", expected a statement ('ID text') or a question (", kQuestionForm, ")");
      story_.position_of_id.push_back(static_cast<long>(story_.statements.size()));
      story_.statements.push_back(std::move(words));
    }
  }

  std::vector<BabiQuestion> finish() {
    HEED_CHECK(!questions_.empty(), name_,
               ": no question, expected bAbI text: statements 'ID text' and questions '",
               kQuestionForm, "'");
    return std::move(questions_);
  }

 private:
  std::string where() const { return name_ + ":" + std::to_string(line_) + ": "; }

  void question(std::string_view text) {
    std::vector<std::string_view> fields;
    for (std::size_t start = 0;;) {
      std::size_t tab = text.find('\t', start);
      fields.push_back(text.substr(start, tab == std::string_view::npos ? tab : tab - start));
      if (tab == std::string_view::npos) break;
      start = tab + 1;
    }
    HEED_CHECK(fields.size() == 3, where(), "a question line with ",
               fields.size() == 1   ? std::string("no TAB")
               : fields.size() == 2 ? std::string("one TAB")
                                    : detail::concat(fields.size() - 1, " TABs"),
               ", expected '", kQuestionForm,
               "' (the answer and the supporting facts after the question, each after a TAB)");
    BabiQuestion q;
    q.task = task_;
    q.file = name_;
    q.line = line_;
    q.question = babi_words(fields[0]);
    HEED_CHECK(!q.question.empty(), where(),
               "an empty question, expected its words before the first TAB ('", kQuestionForm,
               "')");
    q.answer = to_lower(trim(fields[1]));
    HEED_CHECK(!q.answer.empty(), where(),
               "an empty answer, expected the answer between the two TABs ('", kQuestionForm, "')");
    const std::vector<std::string_view> ids = split_blanks(fields[2]);
    HEED_CHECK(!ids.empty(), where(),
               "no supporting fact ids after the second TAB, expected the IDs of the "
               "statements that give the answer ('",
               kQuestionForm, "')");
    const std::size_t before = story_.position_of_id.size();  // IDs 1..before precede the question
    for (std::string_view id_text : ids) {
      std::size_t id = 0;
      HEED_CHECK(parse_number(id_text, id), where(), "supporting fact id '", excerpt(id_text),
                 "' is not a number, expected the ID of a statement of this story before the "
                 "question");
      HEED_CHECK(id >= 1 && id <= before, where(), "supporting fact ", id_text,
                 " points to no line of this story before the question, expected the ID of a "
                 "statement in ",
                 before == 0 ? std::string("(none: the question starts the story)")
                             : detail::concat("1..", before));
      const long position = story_.position_of_id[id - 1];
      HEED_CHECK(position >= 0, where(), "supporting fact ", id_text,
                 " is a question line, expected the ID of a statement of this story before the "
                 "question");
      q.supporting.push_back(static_cast<std::size_t>(position));
    }
    q.story = story_.statements;
    questions_.push_back(std::move(q));
  }

  const std::string& name_;
  int task_;
  std::size_t line_ = 0;
  Story story_;
  std::vector<BabiQuestion> questions_;
};

const char* kTasksExpected =
    "; expected \"all\" or a comma list of task numbers and ranges in 1..20, such as \"1,2,5-7\"";

int parse_task_number(std::string_view item, std::string_view all) {
  std::size_t n = 0;
  HEED_CHECK(parse_number(item, n), "bAbI tasks \"", all, "\": '", item, "' is not a task number",
             kTasksExpected);
  HEED_CHECK(n >= 1 && n <= kTasks, "bAbI tasks \"", all, "\": task ", item, " is outside 1..20",
             kTasksExpected);
  return static_cast<int>(n);
}

}  // namespace

std::vector<std::string> babi_words(std::string_view text) {
  std::vector<std::string> words;
  for (std::string_view piece : split_blanks(text)) {
    if (piece.back() == '.' || piece.back() == '?' || piece.back() == '!') piece.remove_suffix(1);
    if (!piece.empty()) words.push_back(to_lower(piece));
  }
  return words;
}

bool is_babi_question(std::string_view text) {
  return text.find('\t') != std::string_view::npos || trim(text).ends_with('?');
}

std::vector<BabiQuestion> parse_babi(std::istream& in, const std::string& name, int task) {
  HEED_CHECK(task >= 0 && task <= kTasks, name, ": bAbI task ", task,
             ", expected 1..20 (0: not known)");
  Parser parser(name, task);
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    std::string_view text(line);
    const std::size_t bom = n == 1 && text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
    text.remove_prefix(bom);
    parser.line(text, n, bom);
  }
  HEED_CHECK(!in.bad(), name, ": read error");
  return parser.finish();
}

std::vector<BabiQuestion> read_babi_file(const std::string& path, int task) {
  std::error_code ec;
  HEED_CHECK(!std::filesystem::is_directory(path, ec), path,
             ": is a directory, expected a bAbI text file");
  std::ifstream in(path, std::ios::binary);
  HEED_CHECK(in, path, ": cannot open for reading (", std::strerror(errno), ")");
  return parse_babi(in, path, task);
}

std::string babi_task_file(const std::string& dir, int task, std::string_view split) {
  HEED_CHECK(task >= 1 && task <= kTasks, "bAbI task ", task, ", expected 1..20");
  HEED_CHECK(split == "train" || split == "test", "bAbI split '", split,
             "', expected train or test");
  // Streamed, not "literal" + std::string: GCC 12 warns wrongly (-Wrestrict) on that.
  const std::string prefix = detail::concat("qa", task, "_");
  const std::string suffix = detail::concat("_", split, ".txt");
  const std::string wanted = detail::concat(" for bAbI task ", task, ", split ", split,
                                            ", expected one named ", prefix, "<name>", suffix);
  std::error_code ec;
  HEED_CHECK(std::filesystem::is_directory(dir, ec), dir, ": not a directory, looking", wanted,
             " in it");
  std::vector<std::string> found;
  std::error_code status;  // a broken link is no file, and no reason to stop
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    const std::string file = entry.path().filename().string();
    if (file.size() >= prefix.size() + suffix.size() && file.starts_with(prefix) &&
        file.ends_with(suffix) && entry.is_regular_file(status))
      found.push_back(file);
  }
  HEED_CHECK(!ec, dir, ": cannot list the directory (", ec.message(), "), looking", wanted);
  std::sort(found.begin(), found.end());
  HEED_CHECK(!found.empty(), dir, ": no file", wanted);
  std::string list;
  for (const auto& f : found) list += (list.empty() ? "" : ", ") + f;
  HEED_CHECK(found.size() == 1, dir, ": ", found.size(), " files (", list, ")", wanted);
  return (std::filesystem::path(dir) / found[0]).string();
}

std::vector<int> parse_babi_tasks(std::string_view text) {
  const std::string_view all = trim(text);
  std::vector<int> tasks;
  if (all == "all") {
    for (int t = 1; t <= kTasks; ++t) tasks.push_back(t);
    return tasks;
  }
  HEED_CHECK(!all.empty(), "bAbI tasks \"", text, "\": empty", kTasksExpected);
  std::vector<bool> seen(kTasks + 1, false);
  for (std::size_t start = 0;;) {
    const std::size_t comma = all.find(',', start);
    const std::string_view item =
        trim(all.substr(start, comma == std::string_view::npos ? comma : comma - start));
    HEED_CHECK(!item.empty(), "bAbI tasks \"", text, "\": an empty item between commas",
               kTasksExpected);
    const std::size_t dash = item.find('-');
    int first = 0, last = 0;
    if (dash == std::string_view::npos) {
      first = last = parse_task_number(item, text);
    } else {
      const std::string_view a = trim(item.substr(0, dash)), b = trim(item.substr(dash + 1));
      first = parse_task_number(a, text);
      last = parse_task_number(b, text);
      HEED_CHECK(first <= last, "bAbI tasks \"", text, "\": the range ", item, " runs backwards",
                 kTasksExpected);
    }
    for (int t = first; t <= last; ++t) {
      HEED_CHECK(!seen[t], "bAbI tasks \"", text, "\": task ", t, " is given twice",
                 kTasksExpected);
      seen[t] = true;
      tasks.push_back(t);
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  std::sort(tasks.begin(), tasks.end());
  return tasks;
}

BabiSplit split_babi_validation(std::vector<BabiQuestion> questions, double fraction,
                                std::uint64_t seed) {
  HEED_CHECK(std::isfinite(fraction) && fraction >= 0.0 && fraction < 1.0,
             "the bAbI validation fraction must be in [0, 1), got ", fraction);
  std::map<int, std::vector<std::size_t>> by_task;
  for (std::size_t i = 0; i < questions.size(); ++i) by_task[questions[i].task].push_back(i);
  std::vector<bool> to_dev(questions.size(), false);
  for (auto& [task, indices] : by_task) {
    const std::size_t n = indices.size();
    const auto n_dev = static_cast<std::size_t>(std::llround(static_cast<double>(n) * fraction));
    // The first n_dev places of a Fisher-Yates shuffle with our own Rng (std::shuffle's order
    // differs between standard libraries).
    Rng rng(seed ^ (0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(task)));
    for (std::size_t i = 0; i < n_dev; ++i) {
      std::swap(indices[i], indices[i + rng.below(n - i)]);
      to_dev[indices[i]] = true;
    }
  }
  BabiSplit split;
  for (std::size_t i = 0; i < questions.size(); ++i)
    (to_dev[i] ? split.dev : split.train).push_back(std::move(questions[i]));
  return split;
}

}  // namespace heed
