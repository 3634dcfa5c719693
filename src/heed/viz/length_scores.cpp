#include "heed/viz/length_scores.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "heed/base/error.h"

namespace heed::viz {
namespace {

using nlohmann::json;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string what_file(const std::string& path) {
  return path + ": expected the JSON of `heed score --by-length ... --json`";
}

const json& field(const json& obj, const char* key, const std::string& where) {
  auto it = obj.find(key);
  HEED_CHECK(it != obj.end(), where, ": \"", key, "\" is missing");
  return *it;
}

std::string string_field(const json& obj, const char* key, const std::string& where) {
  const json& v = field(obj, key, where);
  HEED_CHECK(v.is_string(), where, ": \"", key, "\" must be a string");
  return v.get<std::string>();
}

std::size_t count_field(const json& obj, const char* key, const std::string& where) {
  const json& v = field(obj, key, where);
  HEED_CHECK(v.is_number_unsigned() || (v.is_number_integer() && v.get<long long>() >= 0), where,
             ": \"", key, "\" must be a non-negative integer");
  return v.get<std::size_t>();
}

// A number, or null (an empty bucket) as NaN.
double score_field(const json& obj, const char* key, const std::string& where) {
  const json& v = field(obj, key, where);
  if (v.is_null()) return kNaN;
  HEED_CHECK(v.is_number(), where, ": \"", key, "\" must be a number or null");
  return v.get<double>();
}

}  // namespace

std::string LengthBucketRow::label() const {
  if (!hi) return std::to_string(lo) + "+";
  if (*hi == lo) return std::to_string(lo);
  return std::to_string(lo) + "-" + std::to_string(*hi);
}

LengthScores read_length_scores(const std::string& path) {
  HEED_CHECK(std::filesystem::exists(path), path, ": no such file");
  HEED_CHECK(!std::filesystem::is_directory(path), path, ": is a directory, expected a file");
  std::ifstream in(path, std::ios::binary);
  HEED_CHECK(in, path, ": cannot open");
  std::ostringstream text;
  text << in.rdbuf();
  json j;
  try {
    j = json::parse(text.str());
  } catch (const json::exception& e) {
    throw Error(what_file(path) + " (" + e.what() + ")");
  }
  HEED_CHECK(j.is_object(), what_file(path), " (not an object)");
  HEED_CHECK(j.contains("buckets"), what_file(path), " (no \"buckets\"; was --by-length given?)");

  LengthScores s;
  s.path = path;
  const std::string metric = string_field(j, "metric", path);
  s.metric = parse_enum<metrics::Metric>(metric, path + ": \"metric\"");
  s.score_name = j.contains("score_name") ? string_field(j, "score_name", path)
                                          : std::string(metrics::score_name(s.metric));
  s.label = string_field(j, "label", path);
  s.length_unit = parse_enum<metrics::LengthUnit>(string_field(j, "length_unit", path),
                                                          path + ": \"length_unit\"");
  const json& lc = field(j, "lowercase", path);
  HEED_CHECK(lc.is_boolean(), path, ": \"lowercase\" must be true or false");
  s.lowercase = lc.get<bool>();
  const json& buckets = j["buckets"];
  HEED_CHECK(buckets.is_array() && !buckets.empty(), path,
             ": \"buckets\" must be a non-empty array");
  for (std::size_t i = 0; i < buckets.size(); ++i) {
    const std::string where = path + ": bucket " + std::to_string(i + 1);
    const json& b = buckets[i];
    HEED_CHECK(b.is_object(), where, ": expected an object");
    LengthBucketRow r;
    r.lo = count_field(b, "lo", where);
    const json& hi = field(b, "hi", where);
    if (!hi.is_null()) {
      r.hi = count_field(b, "hi", where);
      HEED_CHECK(*r.hi >= r.lo, where, ": \"hi\" ", *r.hi, " is below \"lo\" ", r.lo);
    }
    r.n = count_field(b, "n", where);
    r.score = score_field(b, "score", where);
    r.lower = score_field(b, "lower", where);
    r.upper = score_field(b, "upper", where);
    HEED_CHECK(r.n > 0 || std::isnan(r.score), where,
               ": an empty bucket (n = 0) cannot have a score");
    HEED_CHECK(r.n == 0 || !std::isnan(r.score), where, ": \"score\" is null but n = ", r.n);
    s.buckets.push_back(r);
  }
  return s;
}

LineChart length_chart(const std::vector<LengthScores>& files, const std::string& title) {
  HEED_CHECK(!files.empty(), "length chart: no files");
  const LengthScores& first = files.front();
  for (std::size_t k = 1; k < files.size(); ++k) {
    const LengthScores& f = files[k];
    const std::string both = first.path + " and " + f.path;
    HEED_CHECK(f.metric == first.metric, both, " hold different metrics (", first.metric, ", ",
               f.metric, "): one chart draws one metric");
    HEED_CHECK(f.length_unit == first.length_unit, both, " measure length in different units (",
               first.length_unit, ", ", f.length_unit, ")");
    HEED_CHECK(f.lowercase == first.lowercase, both, " differ in lowercasing (",
               first.lowercase ? "lowercased" : "cased", ", ", f.lowercase ? "lowercased" : "cased",
               "): their scores are not comparable");
    bool same = f.buckets.size() == first.buckets.size();
    for (std::size_t i = 0; same && i < f.buckets.size(); ++i) {
      same = f.buckets[i].lo == first.buckets[i].lo && f.buckets[i].hi == first.buckets[i].hi;
    }
    HEED_CHECK(same, both, " have different length buckets; score both with the same --buckets");
  }

  LineChart c;
  const std::string unit =
      first.length_unit == metrics::LengthUnit::chars ? "characters" : "words";
  c.x_title = "source length (" + unit + ")";
  c.y_title = std::string(metrics::chart_title(first.metric));
  std::string name = c.y_title;  // "G2P WER %" -> "G2P WER"
  if (name.size() > 2 && name.compare(name.size() - 2, 2, " %") == 0) name.resize(name.size() - 2);
  c.title = title.empty() ? name + " by source length" : title;
  bool same_n = true;
  for (const auto& f : files) {
    for (std::size_t i = 0; i < f.buckets.size(); ++i)
      same_n &= f.buckets[i].n == first.buckets[i].n;
  }
  for (const auto& b : first.buckets) {
    c.categories.push_back(b.label());
    if (same_n) c.notes.push_back("n=" + std::to_string(b.n));
  }
  for (const auto& f : files) {
    LineSeries s;
    s.label = f.label;
    for (const auto& b : f.buckets) {
      s.y.push_back(b.score);
      s.lower.push_back(b.lower);
      s.upper.push_back(b.upper);
    }
    c.series.push_back(std::move(s));
  }
  return c;
}

}  // namespace heed::viz
