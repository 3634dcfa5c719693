#include "heed/cli/eval_questions.h"

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <vector>

#include "heed/base/atomic_file.h"
#include "heed/base/error.h"
#include "heed/data/babi.h"
#include "heed/data/babi_encoding.h"
#include "heed/store/model_dir.h"
#include "heed/translate/question_answering.h"

namespace heed::cli {

namespace {

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// The questions of task in split: the test file, or the training file whole (train) or the
// held-out share training set aside (dev).
std::vector<BabiQuestion> split_questions(const std::string& dir, int task,
                                          const std::string& split, const DataConfig::Babi& b) {
  if (split == "test") return read_babi_file(babi_task_file(dir, task, "test"), task);
  std::vector<BabiQuestion> all = read_babi_file(babi_task_file(dir, task, "train"), task);
  if (split == "train") return all;
  return split_babi_validation(std::move(all), b.dev_fraction, b.split_seed).dev;
}

}  // namespace

int eval_questions(const QuestionEval& o) {
  if (o.split != "test" && o.split != "train" && o.split != "dev")
    throw UsageError("--split: expected test, train or dev, got '" + o.split + "'");
  LoadedMemoryModel m = load_memory_model_dir(o.model_dir, o.weights);
  const DataConfig::Babi& b = m.config.data.babi;
  const std::string dir = o.babi.empty() ? b.dir : o.babi;
  HEED_CHECK(o.split != "dev" || b.dev_fraction > 0, "--split dev: the model was trained "
             "without a dev set (data.babi.dev_fraction 0)");
  std::vector<int> tasks;
  try {
    tasks = parse_babi_tasks(o.tasks.empty() ? b.tasks : o.tasks);
  } catch (const Error& e) {  // the option, or the model's config (checked when it was read)
    throw Error(std::string(o.tasks.empty() ? "data.babi.tasks" : "--tasks") + ": " + e.what());
  }

  struct Row {
    int task;
    std::size_t questions = 0, wrong = 0, found = 0, with_support = 0;
  };
  std::vector<Row> rows;
  std::string jsonl;
  for (int task : tasks) {
    const std::vector<BabiQuestion> questions = split_questions(dir, task, o.split, b);
    const std::vector<EncodedQuestion> encoded = encode_babi(questions, m.vocab);
    const std::vector<AnsweredQuestion> answers = answer_questions(*m.model, encoded, o.batch);
    Row row{task};
    for (std::size_t i = 0; i < answers.size(); ++i) {
      const AnsweredQuestion& a = answers[i];
      const bool wrong = a.predicted != encoded[i].answer;
      ++row.questions;
      row.wrong += wrong;
      if (!encoded[i].supporting.empty()) {
        ++row.with_support;
        row.found += a.attention_found_support;
      }
      if (o.attention.empty()) continue;
      const BabiQuestion& q = questions[i];
      nlohmann::json j;
      j["task"] = task;
      j["file"] = q.file;
      j["line"] = q.line;
      j["story"] = q.story;
      j["question"] = q.question;
      j["answer"] = q.answer;
      j["predicted"] = m.vocab.token(a.predicted);
      j["probability"] = a.probability;
      j["supporting"] = q.supporting;
      j["first"] = a.first;
      j["hops"] = a.attention;
      jsonl += j.dump() + "\n";
    }
    rows.push_back(row);
  }
  if (!o.attention.empty()) write_file_atomically(o.attention, jsonl);

  std::cout << "bAbI " << o.split << " questions of " << dir << ", " << o.model_dir << " ("
            << m.weights_path << ")"
            << (m.model->linear_hops() ? "; hops without softmax (saved during linear start)" : "")
            << "\n";
  std::printf("%4s %9s %8s %18s\n", "task", "questions", "error", "attention support");
  double sum = 0.0;
  std::vector<int> failed;
  nlohmann::json table = nlohmann::json::array();
  for (const Row& r : rows) {
    const double error = r.questions ? 100.0 * static_cast<double>(r.wrong) /
                                           static_cast<double>(r.questions)
                                     : 0.0;
    const double support = r.with_support ? 100.0 * static_cast<double>(r.found) /
                                                static_cast<double>(r.with_support)
                                          : 0.0;
    sum += error;
    if (error > 5.0) failed.push_back(r.task);
    std::printf("%4d %9zu %7s%% %17s%%\n", r.task, r.questions, fixed(error).c_str(),
                fixed(support).c_str());
    table.push_back({{"task", r.task}, {"questions", r.questions}, {"error", error},
                     {"attention_support", support}});
  }
  const double mean = rows.empty() ? 0.0 : sum / static_cast<double>(rows.size());
  std::string names;
  for (int t : failed) names += (names.empty() ? "" : ", ") + std::to_string(t);
  std::cout << "mean error " << fixed(mean) << "% over " << rows.size() << " task"
            << (rows.size() == 1 ? "" : "s") << "; failed (error > 5%): " << failed.size()
            << (failed.empty() ? "" : " (" + names + ")") << "\n";
  std::fflush(stdout);
  if (!o.json.empty()) {
    nlohmann::json j;
    j["split"] = o.split;
    j["babi"] = dir;
    j["model"] = o.model_dir;
    j["weights"] = m.weights_path;
    j["tasks"] = table;
    j["mean_error"] = mean;
    j["failed"] = failed;
    write_file_atomically(o.json, j.dump(2) + "\n");
  }
  if (!o.attention.empty()) std::cout << "answers and hops: " << o.attention << "\n";
  return 0;
}

}  // namespace heed::cli
