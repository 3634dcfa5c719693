#include "heed/config/config_docs.h"

#include <algorithm>
#include <sstream>

#include "heed/base/error.h"
#include "heed/config/config_keys.h"

namespace heed {

namespace {

constexpr const char* kOpen = "<!-- config-keys ";
constexpr const char* kClose = "<!-- /config-keys -->";

const char* type_name(KeyType t) {
  switch (t) {
    case KeyType::string: return "string";
    case KeyType::integer: return "int";
    case KeyType::unsigned_integer: return "int";
    case KeyType::number: return "float";
    case KeyType::boolean: return "bool";
    case KeyType::choice: return "choice";
  }
  return "?";
}

// A table cell: '|' would end it.
std::string cell(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|') out += '\\';
    out += ch;
  }
  return out;
}

std::string values_of(const ConfigKey& k) {
  std::string out;
  if (k.type == KeyType::choice) {
    std::stringstream ss(k.choices);
    for (std::string name; std::getline(ss, name, '|');) {
      name.erase(0, name.find_first_not_of(' '));
      name.erase(name.find_last_not_of(' ') + 1);
      out += (out.empty() ? "`" : ", `") + name + "`";
    }
    if (k.unset_allowed) out += ", `\"\"`";
    return out;
  }
  for (const KeyRange& r : k.ranges) out += (out.empty() ? "" : ", ") + r.text();
  if (k.type == KeyType::unsigned_integer) out = "≥ 0";
  return out;
}

// The section a marker names: "top" is the top level ("output").
std::string marker_section(const std::string& line) {
  const auto start = std::string(kOpen).size();
  const auto end = line.find(" -->", start);
  const std::string name = line.substr(start, end == std::string::npos ? end : end - start);
  return name == "top" ? "" : name;
}

std::string kinds_of(const ConfigKey& k) {
  if (k.kinds == kAllKinds) return "all";
  return kind_list(k.kinds);
}

}  // namespace

std::string config_key_table(const std::string& section) {
  static const TrainConfig defaults;
  std::string out =
      "| key | type | default | values | kinds | meaning |\n|---|---|---|---|---|---|\n";
  for (const ConfigKey& k : config_keys()) {
    if (k.section() != section) continue;
    const std::string def =
        k.default_text.empty() ? "`" + key_value_text(k.get(defaults)) + "`" : k.default_text;
    out += "| `" + k.leaf() + "` | " + type_name(k.type) + " | " + cell(def) + " | " +
           cell(values_of(k)) + " | " + kinds_of(k) +
           " | " + cell(k.help) + " |\n";
  }
  return out;
}

std::vector<std::string> documented_config_sections(const std::string& doc) {
  std::vector<std::string> out;
  std::istringstream in(doc);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(kOpen, 0) == 0) out.push_back(marker_section(line));
  return out;
}

std::string with_config_key_tables(const std::string& doc) {
  const std::vector<std::string> known = config_sections();
  std::istringstream in(doc);
  std::string out;
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    out += line + "\n";
    if (line.rfind(kOpen, 0) != 0) continue;
    const std::string section = marker_section(line);
    HEED_CHECK(std::find(known.begin(), known.end(), section) != known.end(), "line ", line_no,
               ": the marker names no config section: '", section, "'");
    out += config_key_table(section);
    bool closed = false;
    while (std::getline(in, line)) {
      ++line_no;
      if (line == kClose) {
        out += line + "\n";
        closed = true;
        break;
      }
    }
    HEED_CHECK(closed, "the table of config section '", section, "' has no ", kClose);
  }
  return out;
}

}  // namespace heed
