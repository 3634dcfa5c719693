#include "heed/data/babi_encoding.h"

#include <set>
#include <string>

namespace heed {

Vocabulary babi_vocabulary(const std::vector<BabiQuestion>& questions) {
  std::set<std::string> words;
  for (const BabiQuestion& q : questions) {
    for (const std::vector<std::string>& s : q.story) words.insert(s.begin(), s.end());
    words.insert(q.question.begin(), q.question.end());
    words.insert(q.answer);
  }
  return Vocabulary::from_tokens(std::vector<std::string>(words.begin(), words.end()));
}

std::vector<EncodedQuestion> encode_babi(const std::vector<BabiQuestion>& questions,
                                         const Vocabulary& vocab) {
  std::vector<EncodedQuestion> out;
  out.reserve(questions.size());
  for (const BabiQuestion& q : questions) {
    EncodedQuestion e;
    e.story.reserve(q.story.size());
    for (const std::vector<std::string>& s : q.story) e.story.push_back(vocab.encode(s));
    e.question = vocab.encode(q.question);
    e.answer = vocab.id(q.answer);
    e.supporting = q.supporting;
    e.task = q.task;
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace heed
