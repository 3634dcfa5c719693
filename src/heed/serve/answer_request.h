#pragma once
// The body of `POST /answer` (docs/cli/serve.md#post-answer), for a memory network (model.kind
// memn2n): a story and a question, read into the words the model reads before any work.
//
//   {"story": "Mary went to the kitchen.\nJohn went to the garden.",   required
//    "question": "Where is Mary?"}                                     optional (see below)
//
// The story is one statement a line; blank lines are skipped, and a line may start with its
// number ("3 ", "3. " or "3) "), which is dropped. Words are data/babi.h's babi_words. The
// question is "question", or, when that key is absent or blank, the story's last line if it is
// a question (bAbI's rule, is_babi_question: it ends in '?' or holds a TAB). A story whose last
// line holds a TAB is bAbI text, read by parse_babi as a file is (IDs, the answer and the
// supporting facts checked): its last question is asked, about the statements of its story,
// and its answer and supporting facts come back as what was expected.
// Unknown or repeated keys are refused, as for POST /translate.
#include <cstddef>
#include <string_view>
#include <vector>

#include "heed/data/babi.h"
#include "heed/serve/request.h"

namespace heed::serve {

struct AnswerRequest {
  // The statements (story), the question's words, and for bAbI text the expected answer and
  // the supporting facts (answer "" and no supporting facts otherwise).
  BabiQuestion question;
  std::vector<std::size_t> lines;  // the 1-based line of the story text of each statement
  bool babi = false;               // the story was bAbI text ending in its question
};

// Throws ApiError: 400 for bad JSON, a wrong type, an unknown or repeated key, invalid UTF-8,
// an empty story, a statement line without words, a question line inside a typed story, no
// question or two (bAbI text ending in its question, and "question" too), bAbI text parse_babi
// refuses (its message, "story:LINE: ..."); 413 for a statement or question longer than
// limits.max_sentence_bytes.
AnswerRequest parse_answer_request(std::string_view body, const RequestLimits& limits);

}  // namespace heed::serve
