#pragma once
// A request body read as JSON, for every endpoint of `heed serve` that takes one (POST
// /translate, POST /answer): refused with ApiError 400 when it is not valid UTF-8 (checked
// first: nlohmann's message would quote the bytes), not JSON, or repeats a key within one
// object (nlohmann keeps the last value silently, so {"beam": 2, "beam": 50} would mean
// whatever a client's serialiser happened to write last).
#include <nlohmann/json.hpp>
#include <string_view>

namespace heed::serve {

nlohmann::json parse_json_body(std::string_view body);

}  // namespace heed::serve
