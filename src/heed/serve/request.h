#pragma once
// The body of `POST /translate` (docs/cli/serve.md#api), read and checked before any work is
// queued: what the server refuses, it refuses with a status and a message that says why.
//
//   {"sentences": ["a sentence", ...],     required, 1..limits.max_sentences strings
//    "beam": 5, "nbest": 1,                  optional integers, 1 <= nbest <= beam <= max_beam
//    "attention": false,                     optional: return each hypothesis' attention rows
//    "alignment": "hard",                    optional: hard | soft | a threshold in (0, 1]
//    "saliency": false,                      optional: the best output's saliency rows
//    "heads": false}                         optional: the best output's every attention head
//                                            (a Transformer; other models answer without)
// Unknown keys are refused (a misspelt key would otherwise be ignored silently), and so is a
// key given twice (JSON parsers disagree on which value wins).
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "heed/base/error.h"
#include "heed/translate/alignment.h"

namespace heed::serve {

// A refused request: the HTTP status (400 malformed, 413 too large, 503 overloaded or
// stopping) and the message sent back as {"error": ...}.
class ApiError : public Error {
 public:
  ApiError(int status, const std::string& message) : Error(message), status_(status) {}
  int status() const { return status_; }

 private:
  int status_;
};

struct RequestLimits {
  std::size_t max_sentences = 64;        // sentences in one request
  std::size_t max_sentence_bytes = 4096; // bytes in one sentence (UTF-8)
  std::int64_t max_beam = 64;
  double max_audio_seconds = 60.0;       // POST /transcribe: the longest audio
};

struct TranslateRequest {
  std::vector<std::string> sentences;
  std::int64_t beam = 5;
  std::int64_t nbest = 1;
  bool attention = false;
  std::optional<AlignmentOptions> alignment;
  bool saliency = false;
  bool heads = false;
  // Requests with the same key can be decoded in one batch (TranslationService).
  bool same_decoding(const TranslateRequest& o) const {
    return beam == o.beam && nbest == o.nbest && needs_attention() == o.needs_attention() &&
           saliency == o.saliency && heads == o.heads;
  }
  bool needs_attention() const { return attention || alignment.has_value(); }
};

// Throws ApiError: 400 for bad JSON, a wrong type, an unknown or repeated key, a value out of
// range or invalid UTF-8; 413 for more sentences or longer ones than the limits allow.
TranslateRequest parse_translate_request(std::string_view body, const RequestLimits& limits);

// {"error": message} as the server sends it.
std::string error_body(std::string_view message);

}  // namespace heed::serve
