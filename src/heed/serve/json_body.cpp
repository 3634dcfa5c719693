#include "heed/serve/json_body.h"

#include <set>
#include <string>
#include <vector>

#include "heed/base/utf8.h"
#include "heed/serve/request.h"

namespace heed::serve {

nlohmann::json parse_json_body(std::string_view body) {
  using nlohmann::json;
  if (find_invalid_utf8(body) != std::string_view::npos)
    throw ApiError(400, "the body is not valid UTF-8");
  std::vector<std::set<std::string>> open;  // the keys of every object being read
  std::string duplicate;
  bool found = false;
  const json::parser_callback_t watch = [&](int, json::parse_event_t event, json& parsed) {
    if (event == json::parse_event_t::object_start) {
      open.emplace_back();
    } else if (event == json::parse_event_t::object_end) {
      if (!open.empty()) open.pop_back();
    } else if (event == json::parse_event_t::key && !open.empty() && !found) {
      const auto& key = parsed.get_ref<const std::string&>();
      if (!open.back().insert(key).second) {
        duplicate = key;
        found = true;
      }
    }
    return true;
  };
  json j = json::parse(body, watch, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw ApiError(400, "the body is not valid JSON");
  if (found) throw ApiError(400, "duplicate key \"" + duplicate + "\": each key may appear once");
  return j;
}

}  // namespace heed::serve
