#pragma once
// heed eval for model.kind memn2n (docs/cli/eval.md#memory-networks): answers every question
// of bAbI's test (or training, or the model's own validation) split of each task, prints the
// error per task with how often the attention's most weighted statement in some hop was a
// supporting fact, the mean error and the tasks failed (error > 5%), and writes each question's
// answer and hops as JSON lines on request.
#include <cstdint>
#include <string>

namespace heed::cli {

struct QuestionEval {
  std::string model_dir, weights;
  std::string babi;   // the tasks' directory; empty = the model's data.babi.dir
  std::string split;  // test, train or dev (the held-out share of train, as in training)
  std::string tasks;  // empty = the model's data.babi.tasks
  std::string json;       // --json FILE: the table as JSON; empty = none
  std::string attention;  // --attention FILE: JSON lines, one per question; empty = none
  std::int64_t batch = 256;
};

int eval_questions(const QuestionEval& options);

}  // namespace heed::cli
