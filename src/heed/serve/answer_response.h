#pragma once
// The body the server answers `POST /answer` with, for a memory network
// (docs/cli/serve.md#post-answer):
//   {"answer": "kitchen", "probability": 0.93, "question": ["where", "is", "mary"],
//    "statements": [{"line": 1, "words": ["mary", "went", "to", "the", "kitchen"]}, ...],
//    "hops": [[0.91, 0.09], ...],    one row per hop, one weight per entry of "statements"
//    "dropped": 0,                   earlier statements the memory (model.memory_size) left out
//    "unknown": ["zorb"],            words the vocabulary lacks, each once, in order
//    "unknown_note": "...",          only with unknown words: how they were read
//    "expected": "kitchen", "correct": true,   bAbI text only; its statements then have
//                                              "supporting": true or false
//    "model": "runs/babi", "milliseconds": 0.4}
// "statements" are those the memory held, oldest first: the story's last memory_size.
#include <string>

#include "heed/data/vocabulary.h"
#include "heed/serve/answer_request.h"
#include "heed/translate/question_answering.h"

namespace heed::serve {

std::string answer_response(const AnsweredQuestion& answer, const AnswerRequest& request,
                            const Vocabulary& vocab, const std::string& model,
                            double milliseconds);

}  // namespace heed::serve
