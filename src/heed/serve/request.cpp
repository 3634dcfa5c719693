#include "heed/serve/request.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "heed/serve/json_body.h"

namespace heed::serve {
namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& message) { throw ApiError(400, message); }

std::int64_t integer(const json& v, const char* key, std::int64_t lo, std::int64_t hi) {
  if (!v.is_number_integer())
    bad(std::string("\"") + key + "\" must be an integer from " + std::to_string(lo) + " to " +
        std::to_string(hi));
  const auto x = v.get<std::int64_t>();
  if (x < lo || x > hi)
    bad(std::string("\"") + key + "\" must be from " + std::to_string(lo) + " to " +
        std::to_string(hi) + ", got " + std::to_string(x));
  return x;
}

}  // namespace

TranslateRequest parse_translate_request(std::string_view body, const RequestLimits& limits) {
  const json j = parse_json_body(body);
  if (!j.is_object()) bad("the body must be a JSON object with \"sentences\"");
  TranslateRequest r;
  bool has_sentences = false;
  for (const auto& [key, v] : j.items()) {
    if (key == "sentences") {
      if (!v.is_array()) bad("\"sentences\" must be an array of strings");
      if (v.size() > limits.max_sentences)
        throw ApiError(413, "too many sentences: " + std::to_string(v.size()) + ", at most " +
                                std::to_string(limits.max_sentences) + " per request");
      for (const auto& s : v) {
        if (!s.is_string()) bad("\"sentences\" must be an array of strings");
        const auto& text = s.get_ref<const std::string&>();
        if (text.size() > limits.max_sentence_bytes)
          throw ApiError(413, "sentence " + std::to_string(r.sentences.size() + 1) + " has " +
                                  std::to_string(text.size()) + " bytes, at most " +
                                  std::to_string(limits.max_sentence_bytes));
        r.sentences.push_back(text);
      }
      has_sentences = true;
    } else if (key == "beam") {
      r.beam = integer(v, "beam", 1, limits.max_beam);
    } else if (key == "nbest") {
      r.nbest = integer(v, "nbest", 1, limits.max_beam);
    } else if (key == "attention") {
      if (!v.is_boolean()) bad("\"attention\" must be true or false");
      r.attention = v.get<bool>();
    } else if (key == "saliency") {
      if (!v.is_boolean()) bad("\"saliency\" must be true or false");
      r.saliency = v.get<bool>();
    } else if (key == "heads") {
      if (!v.is_boolean()) bad("\"heads\" must be true or false");
      r.heads = v.get<bool>();
    } else if (key == "alignment") {
      if (!v.is_string()) bad("\"alignment\" must be a string: hard, soft or a threshold");
      try {
        r.alignment = parse_alignment_mode(v.get_ref<const std::string&>());
      } catch (const Error& e) {
        bad(std::string("\"alignment\": ") + e.what());
      }
    } else {
      bad("unknown key \"" + key + "\"; expected sentences, beam, nbest, attention, alignment, "
          "saliency, heads");
    }
  }
  if (!has_sentences) bad("\"sentences\" is required (an array of strings)");
  if (r.sentences.empty()) bad("\"sentences\" is empty");
  if (r.nbest > r.beam)
    bad("\"nbest\" (" + std::to_string(r.nbest) + ") is larger than \"beam\" (" +
        std::to_string(r.beam) + ")");
  return r;
}

std::string error_body(std::string_view message) {
  return json{{"error", message}}.dump();
}

}  // namespace heed::serve
