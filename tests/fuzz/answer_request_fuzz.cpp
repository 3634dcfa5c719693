// libFuzzer harness: the body of `heed serve`'s POST /answer for a memory network
// (serve/answer_request.h). Any input must either parse or be refused with an ApiError of
// status 400 or 413; a request that parses has statements, each with words and a story line,
// lines growing, a question with words, and supporting facts (bAbI text only) among the
// statements.
#include "fuzz/fuzz_input.h"
#include "heed/serve/answer_request.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heed;
  serve::RequestLimits limits;
  limits.max_sentence_bytes = 64;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  serve::AnswerRequest r;
  try {
    r = serve::parse_answer_request(body, limits);
  } catch (const serve::ApiError& e) {
    fuzz::require(e.status() == 400 || e.status() == 413, "refusals are 400 or 413");
    return 0;
  }
  const BabiQuestion& q = r.question;
  fuzz::require(!q.story.empty() && q.story.size() == r.lines.size(),
                "statements, each with its line");
  for (std::size_t i = 0; i < q.story.size(); ++i) {
    fuzz::require(!q.story[i].empty(), "every statement has words");
    fuzz::require(r.lines[i] >= 1 && (i == 0 || r.lines[i] > r.lines[i - 1]),
                  "lines count from 1 and grow");
  }
  fuzz::require(!q.question.empty(), "a question with words");
  fuzz::require(r.babi || (q.answer.empty() && q.supporting.empty()),
                "an expected answer only from bAbI text");
  for (std::size_t s : q.supporting) fuzz::require(s < q.story.size(), "supporting facts in the story");
  return 0;
}
