#pragma once
// bAbI's questions (data/babi.h) as the memory network reads them: one vocabulary of every word
// of the training stories, questions and answers (an answer such as "n,w" is one word), and
// each question's story, question and answer as ids.
#include <cstdint>
#include <vector>

#include "heed/data/babi.h"
#include "heed/data/vocabulary.h"

namespace heed {

struct EncodedQuestion {
  std::vector<std::vector<std::int32_t>> story;  // statements before the question, oldest first
  std::vector<std::int32_t> question;
  std::int32_t answer = 0;
  std::vector<std::size_t> supporting;  // positions in story
  int task = 0;
};

// The specials, then every word of the questions' stories, questions and answers, sorted.
Vocabulary babi_vocabulary(const std::vector<BabiQuestion>& questions);

// Words the vocabulary lacks become <unk>.
std::vector<EncodedQuestion> encode_babi(const std::vector<BabiQuestion>& questions,
                                         const Vocabulary& vocab);

}  // namespace heed
