#include "heed/viz/attention_record.h"

#include <cstdio>

#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "heed/base/error.h"
#include "heed/data/text_file.h"

namespace heed::viz {
namespace {

using Json = nlohmann::json;

// Weights are probabilities written by float32 models: 6 decimals keep every visible
// difference and make files several times smaller than 17-digit doubles.
double round6(float w) { return std::round(static_cast<double>(w) * 1e6) / 1e6; }

std::vector<std::string> token_list(const Json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  HEED_CHECK(it != j.end(), where, ": missing \"", key, "\" (an array of token strings)");
  HEED_CHECK(it->is_array(), where, ": \"", key, "\" must be an array of token strings, got ",
             it->type_name());
  std::vector<std::string> tokens;
  tokens.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& t = (*it)[i];
    HEED_CHECK(t.is_string(), where, ": \"", key, "\"[", i, "] must be a string, got ",
               t.type_name());
    tokens.push_back(t.get<std::string>());
  }
  return tokens;
}

// "3 rows", "1 row".
std::string count(std::size_t n, const char* noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// Strips nlohmann's "[json.exception.parse_error.101] " tag: users need the rest only.
std::string plain_message(const std::exception& e) {
  std::string m = e.what();
  if (!m.empty() && m.front() == '[') {
    auto close = m.find("] ");
    if (close != std::string::npos) m.erase(0, close + 2);
  }
  return m;
}

}  // namespace

void validate(const AttentionRecord& r, const std::string& where) {
  HEED_CHECK(r.index >= 0, where, ": \"index\" must be >= 0, got ", r.index);
  HEED_CHECK(!r.source.empty(), where, ": sentence ", r.index, " has no source tokens");
  HEED_CHECK(!r.output.empty(), where, ": sentence ", r.index, " has no output tokens");
  HEED_CHECK(r.alpha.size() == r.output.size() * r.source.size(), where, ": sentence ", r.index,
             ": attention has ", r.alpha.size(), " weights, expected |output| x |source| = ",
             r.output.size(), " x ", r.source.size(), " = ", r.output.size() * r.source.size());
  for (std::size_t i = 0; i < r.alpha.size(); ++i) {
    const float w = r.alpha[i];
    HEED_CHECK(std::isfinite(w) && w >= 0.0f && w <= 1.0f, where, ": sentence ", r.index,
               ": attention[", i / r.source.size(), "][", i % r.source.size(), "] = ", w,
               " is not a weight in [0, 1]");
  }
  HEED_CHECK(!r.score || std::isfinite(*r.score), where, ": sentence ", r.index,
             ": \"score\" is not finite");
}

static std::string fmt_g6(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(v));
  return buf;
}

std::string to_json_line(const AttentionRecord& r) {
  Json j = Json::object();
  j["index"] = r.index;
  j["source"] = r.source;
  j["output"] = r.output;
  Json rows = Json::array();
  for (std::size_t t = 0; t < r.output.size(); ++t) {
    Json row = Json::array();
    for (std::size_t s = 0; s < r.source.size(); ++s) row.push_back(round6(r.at(t, s)));
    rows.push_back(std::move(row));
  }
  j["attention"] = std::move(rows);
  // Gradients are not probabilities: 6 significant digits rather than 6 decimals.
  auto map = [&](const std::vector<float>& v) {
    Json m = Json::array();
    for (std::size_t t = 0; t < r.output.size(); ++t) {
      Json row = Json::array();
      for (std::size_t s = 0; s < r.source.size(); ++s)
        row.push_back(std::stod(fmt_g6(v[t * r.source.size() + s])));
      m.push_back(std::move(row));
    }
    return m;
  };
  HEED_CHECK(r.saliency.empty() || (r.saliency.size() == r.alpha.size() &&
                                    r.grad_x_input.size() == r.alpha.size()),
             "attention record ", r.index, ": saliency maps of the wrong size");
  if (!r.saliency.empty()) {
    j["saliency"] = map(r.saliency);
    j["grad_x_input"] = map(r.grad_x_input);
  }
  if (r.score) j["score"] = *r.score;
  if (r.model) j["model"] = *r.model;
  // Invalid UTF-8 in a token is replaced rather than thrown on: the file stays valid JSON.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

AttentionRecord parse_attention_record(std::string_view line, const std::string& where) {
  Json j;
  try {
    j = Json::parse(line.begin(), line.end());
  } catch (const Json::parse_error& e) {
    // The parser sees one line, so its "at line 1, column N" becomes where:N.
    std::string m = plain_message(e);
    if (m.rfind("parse error at line", 0) == 0 && m.find(": ") != std::string::npos) {
      m.erase(0, m.find(": ") + 2);
    }
    throw Error(where + ":" + std::to_string(e.byte) + ": invalid JSON: " + m);
  }
  HEED_CHECK(j.is_object(), where, ": expected one JSON object per line (a sentence), got ",
             j.type_name());
  AttentionRecord r;
  auto index = j.find("index");
  HEED_CHECK(index != j.end(), where, ": missing \"index\" (the sentence number)");
  HEED_CHECK(index->is_number_integer(), where, ": \"index\" must be an integer, got ",
             index->dump());
  HEED_CHECK(index->is_number_unsigned() || index->get<std::int64_t>() >= 0, where,
             ": \"index\" must be >= 0, got ", index->dump());
  HEED_CHECK(index->get<std::uint64_t>() <= static_cast<std::uint64_t>(INT64_MAX), where,
             ": \"index\" is too large");
  r.index = index->get<std::int64_t>();
  r.source = token_list(j, "source", where);
  r.output = token_list(j, "output", where);

  auto att = j.find("attention");
  HEED_CHECK(att != j.end(), where, ": missing \"attention\" (|output| rows of |source| weights)");
  HEED_CHECK(att->is_array(), where, ": \"attention\" must be an array of rows, got ",
             att->type_name());
  HEED_CHECK(att->size() == r.output.size(), where, ": sentence ", r.index, ": \"attention\" has ",
             count(att->size(), "row"), " for ", count(r.output.size(), "output token"));
  r.alpha.reserve(r.output.size() * r.source.size());
  for (std::size_t t = 0; t < att->size(); ++t) {
    const Json& row = (*att)[t];
    HEED_CHECK(row.is_array(), where, ": sentence ", r.index, ": \"attention\"[", t,
               "] must be an array of numbers, got ", row.type_name());
    HEED_CHECK(row.size() == r.source.size(), where, ": sentence ", r.index, ": \"attention\"[",
               t, "] has ", count(row.size(), "weight"), " for ",
               count(r.source.size(), "source token"));
    for (std::size_t s = 0; s < row.size(); ++s) {
      const double w = row[s].is_number() ? row[s].get<double>() : -1.0;
      HEED_CHECK(w >= 0.0 && w <= 1.0, where, ": sentence ", r.index, ": \"attention\"[", t,
                 "][", s, "] = ", row[s].dump(), " is not a weight in [0, 1]");
      r.alpha.push_back(static_cast<float>(w));
    }
  }
  if (auto it = j.find("score"); it != j.end() && !it->is_null()) {
    HEED_CHECK(it->is_number(), where, ": \"score\" must be a number, got ", it->dump());
    r.score = it->get<double>();
  }
  if (auto it = j.find("model"); it != j.end() && !it->is_null()) {
    HEED_CHECK(it->is_string(), where, ": \"model\" must be a string, got ", it->dump());
    r.model = it->get<std::string>();
  }
  validate(r, where);
  return r;
}

void write_attention_file(const std::string& path, const std::vector<AttentionRecord>& records) {
  std::unordered_map<std::int64_t, std::size_t> seen;
  std::vector<std::string> lines;
  lines.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const std::string where = path + ": record " + std::to_string(i);
    validate(records[i], where);
    auto [it, fresh] = seen.emplace(records[i].index, i);
    HEED_CHECK(fresh, where, ": index ", records[i].index, " already used by record ",
               it->second);
    lines.push_back(to_json_line(records[i]));
  }
  write_lines(path, lines);
}

std::vector<AttentionRecord> read_attention_file(const std::string& path) {
  const std::vector<std::string> lines = read_lines(path);
  std::vector<AttentionRecord> records;
  std::unordered_map<std::int64_t, std::size_t> seen;  // index -> line
  for (std::size_t n = 0; n < lines.size(); ++n) {
    const std::string& line = lines[n];
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    const std::string where = path + ":" + std::to_string(n + 1);
    if (records.empty() && line[line.find_first_not_of(" \t")] == '[') {
      throw Error(where + ": expected JSON Lines (one sentence object per line), not a JSON "
                          "array (see docs/ATTENTION_JSON.md)");
    }
    records.push_back(parse_attention_record(line, where));
    auto [it, fresh] = seen.emplace(records.back().index, n + 1);
    HEED_CHECK(fresh, where, ": index ", records.back().index, " already used on line ",
               it->second);
  }
  HEED_CHECK(!records.empty(), path, ": no sentences (the file holds only blank lines)");
  return records;
}

}  // namespace heed::viz
