// The body of POST /answer read into a story and a question: typed statements (numbered or
// not, blank lines skipped), the question from its key or the story's last line, bAbI text
// read by parse_babi, and every refusal with its status and a message that says why.
#include "heed/serve/answer_request.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace heed::serve {
namespace {

using Words = std::vector<std::string>;
using Story = std::vector<Words>;
using Lines = std::vector<std::size_t>;

AnswerRequest parse(const std::string& body) { return parse_answer_request(body, {}); }

TEST(AnswerRequest, ATypedStoryAndItsQuestion) {
  const AnswerRequest r = parse(
      R"({"story": "Mary went to the Kitchen.\nJohn moved to the garden.", "question": "Where is Mary?"})");
  EXPECT_EQ(r.question.story, (Story{Words{"mary", "went", "to", "the", "kitchen"},
                                     Words{"john", "moved", "to", "the", "garden"}}));
  EXPECT_EQ(r.question.question, (Words{"where", "is", "mary"}));
  EXPECT_EQ(r.lines, (Lines{1, 2}));
  EXPECT_EQ(r.question.answer, "");
  EXPECT_TRUE(r.question.supporting.empty());
  EXPECT_FALSE(r.babi);
}

TEST(AnswerRequest, NumbersBlankLinesAndLineEndsAreOptional) {
  const AnswerRequest r = parse(
      "{\"story\": \"\\ufeff1 Mary went to the kitchen.\\r\\n\\n  2. John went to the garden.\\n"
      "3) Mary moved to the office\\n\\n \\n\", \"question\": \"where is mary\"}");
  EXPECT_EQ(r.question.story, (Story{Words{"mary", "went", "to", "the", "kitchen"},
                                     Words{"john", "went", "to", "the", "garden"},
                                     Words{"mary", "moved", "to", "the", "office"}}));
  EXPECT_EQ(r.lines, (Lines{1, 3, 4}));
  EXPECT_EQ(r.question.question, (Words{"where", "is", "mary"}));
  // A number not followed by a space stays a word.
  const AnswerRequest n = parse(R"({"story": "3.5 apples.\n7kg here\n12", "question": "What?"})");
  EXPECT_EQ(n.question.story.size(), 3u);
  EXPECT_EQ(n.question.story[0], (Words{"3.5", "apples"}));
  EXPECT_EQ(n.question.story[1], (Words{"7kg", "here"}));
  EXPECT_EQ(n.question.story[2], (Words{"12"}));
}

TEST(AnswerRequest, TheStorysLastLineIsTheQuestionWhenNoneIsGiven) {
  for (const char* body :
       {R"({"story": "Mary went to the kitchen.\n\nWhere is Mary?\n"})",
        R"({"story": "1 Mary went to the kitchen.\n2 Where is Mary ? ", "question": "  "})"}) {
    const AnswerRequest r = parse(body);
    EXPECT_EQ(r.question.story, (Story{Words{"mary", "went", "to", "the", "kitchen"}})) << body;
    EXPECT_EQ(r.lines, Lines{1}) << body;
    EXPECT_EQ(r.question.question, (Words{"where", "is", "mary"})) << body;
    EXPECT_FALSE(r.babi) << body;
  }
}

TEST(AnswerRequest, BabiTextAsksItsLastQuestionWithTheExpectedAnswer) {
  const AnswerRequest r = parse(
      R"({"story": "1 Mary went to the kitchen.\n2 John went to the garden.\n3 Where is Mary? \tkitchen\t1\n4 Mary moved to the office.\n5 Where is Mary?\toffice\t4\n"})");
  EXPECT_TRUE(r.babi);
  EXPECT_EQ(r.question.story.size(), 3u);
  EXPECT_EQ(r.question.story[2], (Words{"mary", "moved", "to", "the", "office"}));
  EXPECT_EQ(r.lines, (Lines{1, 2, 4}));  // line 3 is a question, not a statement
  EXPECT_EQ(r.question.question, (Words{"where", "is", "mary"}));
  EXPECT_EQ(r.question.answer, "office");
  EXPECT_EQ(r.question.supporting, std::vector<std::size_t>{2});
  // Of several stories, the last one's statements (its IDs start again at 1).
  const AnswerRequest last = parse(
      R"({"story": "1 Mary went to the kitchen.\n2 Where is Mary?\tkitchen\t1\n1 John went to the garden.\n2 Sandra went to the office.\n3 Where is John?\tgarden\t1", "question": ""})");
  EXPECT_EQ(last.question.story.size(), 2u);
  EXPECT_EQ(last.lines, (Lines{3, 4}));
  EXPECT_EQ(last.question.answer, "garden");
  EXPECT_EQ(last.question.supporting, std::vector<std::size_t>{0});
  // An ID written with a leading zero is the same number, as parse_babi reads it.
  const AnswerRequest zero = parse(
      R"({"story": "1 Mary went to the kitchen.\n2 Where is Mary?\tkitchen\t1\n01 John went to the garden.\n02 Where is John?\tgarden\t1"})");
  EXPECT_EQ(zero.lines, Lines{3});
  EXPECT_EQ(zero.question.answer, "garden");
}

TEST(AnswerRequest, RefusalsSayWhyWithTheirStatus) {
  RequestLimits limits;
  limits.max_sentence_bytes = 40;
  struct Case {
    std::string body;
    int status;
    std::string words;
  };
  const std::vector<Case> cases = {
      {"", 400, "not valid JSON"},
      {"[1]", 400, "must be a JSON object with \"story\" and \"question\""},
      {"{}", 400, "\"story\" is required"},
      {R"({"question": "Where?"})", 400, "\"story\" is required"},
      {R"({"story": ["a."], "question": "b?"})", 400, "\"story\" must be a string"},
      {R"({"story": "a.", "question": 3})", 400, "\"question\" must be a string"},
      {R"({"story": "a.", "question": "b?", "beam": 2})", 400,
       "unknown key \"beam\"; expected story, question"},
      {R"({"story": "a.", "story": "b.", "question": "c?"})", 400, "duplicate key \"story\""},
      {R"({"story": "", "question": "Where?"})", 400, "\"story\" is empty"},
      {R"({"story": " \n\t\n", "question": "Where?"})", 400, "\"story\" is empty"},
      {R"({"story": "Mary went to the kitchen."})", 400,
       "no question: send \"question\" (\"Where is Mary?\"), or end the story with a line that "
       "ends in '?'"},
      {R"({"story": "Mary went to the kitchen.", "question": " "})", 400, "\"question\" is blank"},
      {R"({"story": "Mary went to the kitchen.", "question": "?"})", 400,
       "\"question\" has no words (\"?\")"},
      {R"({"story": "Mary went.\nWhere is Mary?", "question": "Where is John?"})", 400,
       "two questions: \"question\" and the story's last line (line 2, \"Where is Mary?\")"},
      {R"({"story": "Mary went.\nWhere is Mary?\nJohn went.", "question": "Where is John?"})", 400,
       "story line 2 is a question (\"Where is Mary?\": it ends in '?' or holds a TAB)"},
      {R"({"story": "Mary went.\n2 .\nJohn went.", "question": "Where is John?"})", 400,
       "story line 2 has no words (\"2 .\")"},
      {R"({"story": "Where is Mary?"})", 400, "the story has no statements before its question"},
      {R"({"story": "Mary went.\n ? "})", 400,
       "the story's last line (line 2, \" ? \") is a question without words"},
      // bAbI text: parse_babi's message, naming the story's line.
      {R"({"story": "1 Mary went to the kitchen.\n3 Where is Mary?\tkitchen\t1"})", 400,
       "story:2: ID 3 after ID 1, expected 2"},
      {R"({"story": "1 Mary went to the kitchen.\n2 Where is Mary?\tkitchen"})", 400,
       "story:2: a question line with one TAB"},
      {R"({"story": "1 Mary went.\n2 Where is Mary?\tkitchen\t1", "question": "Where?"})", 400,
       "two questions"},
      {"{\"story\": \"Mary went.\", \"question\": \"Where is Mary?\xff\"}", 400,
       "not valid UTF-8"},
      {R"({"story": "Mary went to the kitchen and then to the garden.", "question": "Where?"})",
       413, "story line 1 has 48 bytes, at most 40"},
      {R"({"story": "Mary went.", "question": "Where did Mary go after she went to the kitchen?"})",
       413, "\"question\" has 48 bytes, at most 40"},
  };
  for (const Case& c : cases) {
    try {
      parse_answer_request(c.body, limits);
      ADD_FAILURE() << "accepted: " << c.body;
    } catch (const ApiError& e) {
      EXPECT_EQ(e.status(), c.status) << c.body;
      EXPECT_NE(std::string(e.what()).find(c.words), std::string::npos)
          << c.body << "\n  said: " << e.what();
    }
  }
}

}  // namespace
}  // namespace heed::serve
