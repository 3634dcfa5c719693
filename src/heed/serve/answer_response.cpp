#include "heed/serve/answer_response.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

namespace heed::serve {

std::string answer_response(const AnsweredQuestion& answer, const AnswerRequest& request,
                            const Vocabulary& vocab, const std::string& model,
                            double milliseconds) {
  using nlohmann::json;
  const BabiQuestion& q = request.question;
  std::vector<std::string> unknown;
  auto note_unknown = [&](const std::vector<std::string>& words) {
    for (const std::string& w : words)
      if (!vocab.contains(w) && std::find(unknown.begin(), unknown.end(), w) == unknown.end())
        unknown.push_back(w);
  };
  json statements = json::array();
  for (std::size_t s = answer.first; s < q.story.size(); ++s) {
    json st = {{"line", request.lines.at(s)}, {"words", q.story[s]}};
    if (request.babi)
      st["supporting"] =
          std::find(q.supporting.begin(), q.supporting.end(), s) != q.supporting.end();
    note_unknown(q.story[s]);
    statements.push_back(std::move(st));
  }
  note_unknown(q.question);
  const std::string predicted = vocab.token(answer.predicted);
  json out = {{"answer", predicted},
              {"probability", answer.probability},
              {"question", q.question},
              {"statements", std::move(statements)},
              {"hops", answer.attention},
              {"dropped", answer.first},
              {"unknown", unknown},
              {"model", model},
              {"milliseconds", milliseconds}};
  if (!unknown.empty()) {
    std::string list;
    for (const std::string& w : unknown) (list += list.empty() ? "" : ", ") += w;
    out["unknown_note"] =
        std::to_string(unknown.size()) + (unknown.size() == 1 ? " word" : " words") +
        " the model never saw (" + list + ") " + (unknown.size() == 1 ? "was" : "were") +
        " read as the unknown word " + std::string(Vocabulary::kUnkToken) +
        ", which no training story held: answered all the same, without " +
        (unknown.size() == 1 ? "its" : "their") + " meaning";
  }
  if (request.babi) {
    out["expected"] = q.answer;
    out["correct"] = predicted == q.answer;
  }
  return out.dump();
}

}  // namespace heed::serve
