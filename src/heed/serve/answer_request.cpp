#include "heed/serve/answer_request.h"

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "heed/serve/json_body.h"

namespace heed::serve {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& message) { throw ApiError(400, message); }

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

bool blank(std::string_view s) {
  for (const char c : s)
    if (!is_blank(c)) return false;
  return true;
}

// The story's lines without their line ends ("\n" or "\r\n") and without a UTF-8 byte order
// mark, the blank lines at its end left out.
std::vector<std::string_view> story_lines(std::string_view story) {
  if (story.starts_with("\xEF\xBB\xBF")) story.remove_prefix(3);
  std::vector<std::string_view> lines;
  for (std::size_t start = 0; start <= story.size();) {
    std::size_t end = story.find('\n', start);
    if (end == std::string_view::npos) end = story.size();
    std::string_view line = story.substr(start, end - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  while (!lines.empty() && blank(lines.back())) lines.pop_back();
  return lines;
}

// A line's text after its number: "3 text", "3. text" and "3) text" give "text" (spaces
// before the number too); a line that does not start with a number followed by a space (after
// the '.' or ')') is kept whole.
std::string_view without_number(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  const std::size_t digits = i;
  while (i < line.size() && is_digit(line[i])) ++i;
  if (i == digits) return line;
  if (i < line.size() && (line[i] == '.' || line[i] == ')')) ++i;
  if (i == line.size() || line[i] != ' ') return line;
  while (i < line.size() && line[i] == ' ') ++i;
  return line.substr(i);
}

// The line quoted for a message, cut after 40 bytes (at a code point's start).
std::string excerpt(std::string_view line) {
  constexpr std::size_t kMax = 40;
  // Streamed, not "literal" + std::string: GCC 12 warns wrongly (-Wrestrict) on that.
  if (line.size() <= kMax) return detail::concat('"', line, '"');
  std::size_t cut = kMax;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  return detail::concat('"', line.substr(0, cut), "...\"");
}

// bAbI text whose last line (last) is its question: parse_babi reads it; the last question is
// asked. The statements' lines are those of its story (from the last line whose ID is 1) that
// are not questions.
AnswerRequest babi_request(const std::vector<std::string_view>& lines, std::size_t last) {
  std::string text;
  for (std::size_t k = 0; k <= last; ++k) (text += lines[k]) += '\n';
  std::istringstream in(text);
  std::vector<BabiQuestion> questions;
  try {
    questions = parse_babi(in, "story");
  } catch (const Error& e) {
    bad(std::string(e.what()) + " (a story whose last line holds a TAB is read as bAbI text)");
  }
  AnswerRequest r;
  r.babi = true;
  r.question = std::move(questions.back());
  std::size_t start = 0;  // the last line whose ID is 1 ("1", "01", ...): its story's first
  for (std::size_t k = 0; k <= last; ++k) {
    const std::string_view id = lines[k].substr(0, lines[k].find(' '));
    if (id.find_first_not_of('0') != std::string_view::npos &&
        id.substr(id.find_first_not_of('0')) == "1")
      start = k;
  }
  for (std::size_t k = start; k < last; ++k)
    if (!is_babi_question(lines[k].substr(lines[k].find(' ') + 1))) r.lines.push_back(k + 1);
  HEED_CHECK(r.lines.size() == r.question.story.size(), "serve: ", r.lines.size(),
             " statement lines for the ", r.question.story.size(), " statements parse_babi read");
  return r;
}

}  // namespace

AnswerRequest parse_answer_request(std::string_view body, const RequestLimits& limits) {
  const json j = parse_json_body(body);
  if (!j.is_object()) bad("the body must be a JSON object with \"story\" and \"question\"");
  const std::string* story = nullptr;
  const std::string* question = nullptr;
  for (const auto& [key, v] : j.items()) {
    if (key == "story" || key == "question") {
      if (!v.is_string())
        bad("\"" + key + "\" must be a string" +
            (key == "story" ? std::string(": the story's statements, one per line") : ""));
      (key == "story" ? story : question) = &v.get_ref<const std::string&>();
    } else {
      bad("unknown key \"" + key + "\"; expected story, question");
    }
  }
  if (!story) bad("\"story\" is required: the story's statements, one per line");
  const std::vector<std::string_view> lines = story_lines(*story);
  std::size_t last = lines.size();  // the last line that is not blank
  for (std::size_t k = 0; k < lines.size(); ++k) {
    if (lines[k].size() > limits.max_sentence_bytes)
      throw ApiError(413, "story line " + std::to_string(k + 1) + " has " +
                              std::to_string(lines[k].size()) + " bytes, at most " +
                              std::to_string(limits.max_sentence_bytes));
    if (!blank(lines[k])) last = k;
  }
  if (last == lines.size())
    bad("\"story\" is empty: expected its statements, one per line (\"Mary went to the "
        "kitchen.\")");
  if (question && question->size() > limits.max_sentence_bytes)
    throw ApiError(413, "\"question\" has " + std::to_string(question->size()) +
                            " bytes, at most " + std::to_string(limits.max_sentence_bytes));
  const bool asked = question && !blank(*question);
  const bool ends_in_question = is_babi_question(without_number(lines[last]));
  if (asked && ends_in_question)
    bad("two questions: \"question\" and the story's last line (line " + std::to_string(last + 1) +
        ", " + excerpt(lines[last]) + "); leave out \"question\" to ask the story's, or end "
        "the story with a statement");
  if (lines[last].find('\t') != std::string_view::npos) return babi_request(lines, last);

  AnswerRequest r;
  for (std::size_t k = 0; k < last; ++k) {
    if (blank(lines[k])) continue;
    const std::string_view text = without_number(lines[k]);
    if (is_babi_question(text))
      bad("story line " + std::to_string(k + 1) + " is a question (" + excerpt(lines[k]) +
          ": it ends in '?' or holds a TAB); a story holds statements, and only its last line "
          "may be the question");
    std::vector<std::string> words = babi_words(text);
    if (words.empty())
      bad("story line " + std::to_string(k + 1) + " has no words (" + excerpt(lines[k]) +
          "), expected a statement such as \"Mary went to the kitchen.\"");
    r.question.story.push_back(std::move(words));
    r.lines.push_back(k + 1);
  }
  if (ends_in_question) {
    r.question.question = babi_words(without_number(lines[last]));
    if (r.question.question.empty())
      bad("the story's last line (line " + std::to_string(last + 1) + ", " + excerpt(lines[last]) +
          ") is a question without words");
  } else {
    std::vector<std::string> words = babi_words(without_number(lines[last]));
    if (words.empty())
      bad("story line " + std::to_string(last + 1) + " has no words (" + excerpt(lines[last]) +
          "), expected a statement such as \"Mary went to the kitchen.\"");
    r.question.story.push_back(std::move(words));
    r.lines.push_back(last + 1);
    if (!question || !asked)
      bad(std::string(question ? "\"question\" is blank" : "no question") +
          ": send \"question\" (\"Where is Mary?\"), or end the story with a line that ends "
          "in '?'");
    r.question.question = babi_words(*question);
    if (r.question.question.empty())
      bad("\"question\" has no words (" + excerpt(*question) + "), expected a question such as "
          "\"Where is Mary?\"");
  }
  if (r.question.story.empty())
    bad("the story has no statements before its question: expected statements, one per line, "
        "then the question");
  return r;
}

}  // namespace heed::serve
