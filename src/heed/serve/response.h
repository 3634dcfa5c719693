#pragma once
// The body the server answers `POST /translate` with (docs/cli/serve.md#api):
//   {"translations": [{"source": [pieces], "skipped": false,
//                      "nbest": [{"text": "...", "score": -1.2, "output": [pieces],
//                                 "attention": [[row], ...],      only when asked
//                                 "alignment": "0-0 1-2",         only when asked
//                                 "saliency": [[row], ...],       best hypothesis, when asked
//                                 "heads": {...}}]}],             best hypothesis of a
//                                                                 Transformer, when asked
//    "model": "DIR", "milliseconds": 12.3}
// A sentence longer than the server's limit is "skipped": true with an empty n-best list.
#include <string>
#include <vector>

#include "heed/serve/request.h"
#include "heed/serve/translation_service.h"
#include "heed/translate/line_translator.h"

namespace heed::serve {

std::string translate_response(const ServiceResult& result, const TranslateRequest& request,
                               const LineTranslator& translator, const std::string& model,
                               double milliseconds);

}  // namespace heed::serve
