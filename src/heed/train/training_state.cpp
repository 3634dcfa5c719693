#include "heed/train/training_state.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "heed/base/error.h"
#include "heed/train/optimizer_checkpoint.h"

namespace heed {

namespace {

const char* const kFormat = "heed-training-state-1";

std::string hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

std::string join_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

Metadata to_metadata(const TrainingState& s) {
  Metadata m;
  m["heed.format"] = kFormat;
  m["heed.step"] = std::to_string(s.step);
  m["heed.position"] = s.position.to_string();
  m["heed.rng"] = s.rng_state;
  m["heed.schedule"] = s.schedule_state;
  m["heed.has_best"] = s.has_best ? "1" : "0";
  m["heed.best_score"] = hex(s.best_metric);
  m["heed.best_step"] = std::to_string(s.best_step);
  m["heed.bad_validations"] = std::to_string(s.bad_validations);
  m["heed.target_tokens"] = std::to_string(s.target_tokens);
  m["heed.train_seconds"] = hex(s.train_seconds);
  std::ostringstream ckpts;
  for (std::size_t i = 0; i < s.checkpoints.size(); ++i) ckpts << (i ? " " : "") << s.checkpoints[i];
  m["heed.checkpoints"] = ckpts.str();
  m["heed.history"] = join_lines(s.history);
  m["heed.stop_reason"] = s.stop_reason;
  m["heed.window_loss"] = hex(s.window_loss);
  m["heed.window_tokens"] = std::to_string(s.window_tokens);
  m["heed.reinforce_baseline"] = s.has_baseline ? hex(s.baseline) : "";
  // The memory network's linear start: "on" or "off" and the last dev loss; empty otherwise.
  m["heed.linear_start"] = s.has_linear_start ? (s.linear_start ? "on" : "off") : "";
  m["heed.lowest_dev_loss"] = s.has_linear_start ? hex(s.lowest_dev_loss) : "";
  m["heed.stale_validations"] = s.has_linear_start ? std::to_string(s.stale_validations) : "";
  m["heed.linear_start_ended_at"] =
      s.has_linear_start ? std::to_string(s.linear_start_ended_at) : "";
  return m;
}

TrainingState from_metadata(const Metadata& m, const std::string& path) {
  auto get = [&](const char* key) -> const std::string& {
    auto it = m.find(key);
    HEED_CHECK(it != m.end(), path, ": not a heed training state (no '", key, "' in its metadata)");
    return it->second;
  };
  HEED_CHECK(get("heed.format") == kFormat, path, ": unsupported training-state format '",
             get("heed.format"), "' (expected ", kFormat, ")");
  auto integer = [&](const char* key) {
    const std::string& v = get(key);
    char* end = nullptr;
    const long long x = std::strtoll(v.c_str(), &end, 10);
    HEED_CHECK(!v.empty() && *end == '\0', path, ": metadata ", key, " is not an integer: '", v, "'");
    return static_cast<std::int64_t>(x);
  };
  auto real = [&](const char* key) {
    const std::string& v = get(key);
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    HEED_CHECK(!v.empty() && *end == '\0', path, ": metadata ", key, " is not a number: '", v, "'");
    return x;
  };
  TrainingState s;
  s.step = integer("heed.step");
  try {
    s.position = BatchPosition::parse(get("heed.position"));
  } catch (const Error& e) {
    throw Error(path + ": " + e.what());
  }
  s.rng_state = get("heed.rng");
  s.schedule_state = get("heed.schedule");
  s.has_best = integer("heed.has_best") != 0;
  s.best_metric = real("heed.best_score");
  s.best_step = integer("heed.best_step");
  s.bad_validations = integer("heed.bad_validations");
  s.target_tokens = integer("heed.target_tokens");
  s.train_seconds = real("heed.train_seconds");
  std::istringstream ck(get("heed.checkpoints"));
  for (long long c; ck >> c;) s.checkpoints.push_back(c);
  s.history = split_lines(get("heed.history"));
  s.stop_reason = get("heed.stop_reason");
  s.has_window = m.count("heed.window_loss") && m.count("heed.window_tokens");  // absent before
  if (s.has_window) {
    s.window_loss = real("heed.window_loss");
    s.window_tokens = integer("heed.window_tokens");
  }
  // Absent in states written before hard attention, empty until its first batch.
  if (auto it = m.find("heed.reinforce_baseline"); it != m.end() && !it->second.empty()) {
    s.has_baseline = true;
    s.baseline = real("heed.reinforce_baseline");
  }
  if (auto it = m.find("heed.linear_start"); it != m.end() && !it->second.empty()) {
    HEED_CHECK(it->second == "on" || it->second == "off", path,
               ": heed.linear_start is '", it->second, "', expected on or off");
    s.has_linear_start = true;
    s.linear_start = it->second == "on";
    s.lowest_dev_loss = real("heed.lowest_dev_loss");
    s.stale_validations = integer("heed.stale_validations");
    // Absent in states written before training.linear_start_lr.
    if (auto e = m.find("heed.linear_start_ended_at"); e != m.end() && !e->second.empty())
      s.linear_start_ended_at = integer("heed.linear_start_ended_at");
  }
  return s;
}

}  // namespace

void save_training_state(const std::string& path, const Module& module,
                         const Optimizer& optimizer, const TrainingState& state) {
  save_checkpoint(path, module, optimizer, to_metadata(state));
}

TrainingState load_training_state(const std::string& path, Module& module, Optimizer& optimizer) {
  // Check the metadata before touching the model.
  TrainingState s = read_training_state(path);
  load_checkpoint(path, module, optimizer);
  return s;
}

TrainingState read_training_state(const std::string& path) {
  return from_metadata(load_safetensors(path).metadata, path);
}

}  // namespace heed
