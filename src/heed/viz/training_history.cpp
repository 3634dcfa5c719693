#include "heed/viz/training_history.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <limits>

#include "heed/base/error.h"

namespace heed::viz {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The dev metrics the trainer writes, in the order it prefers them (g2p writes wer and per:
// wer is its score).
constexpr const char* kMetrics[] = {"bleu", "wer", "error"};

double number_or_nan(const json& obj, const char* key, const std::string& where) {
  const auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return kNaN;
  HEED_CHECK(it->is_number(), where, ": \"", key, "\" must be a number");
  return it->get<double>();
}

}  // namespace

std::string history_path(const std::string& dir) {
  // Not store/model_dir.h's constant: viz sits beside the layers and reads only files.
  return (fs::path(dir) / "history.jsonl").string();
}

TrainingHistory read_training_history(const std::string& dir) {
  HEED_CHECK(fs::is_directory(dir), dir, ": not a directory (expected a model directory of heed train)");
  const std::string path = history_path(dir);
  HEED_CHECK(fs::exists(path), path,
             ": no such file (heed train writes it at the first validation; is ", dir,
             " a model directory?)");
  std::ifstream in(path, std::ios::binary);
  HEED_CHECK(in.good(), path, ": cannot open for reading");
  TrainingHistory h;
  h.dir = dir;
  std::string line;
  std::size_t number = 0;
  while (std::getline(in, line)) {
    ++number;
    const std::string where = path + ":" + std::to_string(number);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const json j = json::parse(line, nullptr, false);
    HEED_CHECK(!j.is_discarded() && j.is_object(), where,
               ": not a complete JSON object (a truncated line?), expected one validation's "
               "record as heed train writes it");
    const auto step = j.find("step");
    HEED_CHECK(step != j.end() && step->is_number_integer(), where,
               ": \"step\" is missing or not an integer");
    HistoryPoint p;
    p.step = step->get<std::int64_t>();
    p.dev_loss = number_or_nan(j, "dev_loss", where);
    HEED_CHECK(p.dev_loss == p.dev_loss, where, ": \"dev_loss\" is missing");
    p.train_loss = number_or_nan(j, "train_loss", where);
    p.lr = number_or_nan(j, "lr", where);
    p.seconds = number_or_nan(j, "seconds", where);
    p.metric = kNaN;
    for (const char* m : kMetrics) {
      if (!j.contains(m)) continue;
      HEED_CHECK(h.metric.empty() || h.metric == m, where, ": records \"", m,
                 "\" where the lines before it record \"", h.metric, "\"");
      h.metric = m;
      p.metric = number_or_nan(j, m, where);
      break;
    }
    HEED_CHECK(h.points.empty() || p.step > h.points.back().step, where, ": step ", p.step,
               " does not follow step ", h.points.empty() ? 0 : h.points.back().step,
               " of the line before");
    h.points.push_back(p);
  }
  HEED_CHECK(!h.points.empty(), path, ": empty (no validation recorded yet)");
  return h;
}

}  // namespace heed::viz
