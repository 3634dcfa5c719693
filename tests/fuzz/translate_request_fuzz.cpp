// libFuzzer harness: the body of `heed serve`'s POST /translate (serve/request.h). Any input
// must either parse or be refused with an ApiError of status 400 or 413; a request that
// parses must respect the limits, and written back as JSON it must parse to the same request.
#include <nlohmann/json.hpp>

#include <charconv>

#include "fuzz/fuzz_input.h"
#include "heed/serve/request.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace heed;
  serve::RequestLimits limits;
  limits.max_sentences = 8;
  limits.max_sentence_bytes = 64;
  limits.max_beam = 16;
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  serve::TranslateRequest r;
  try {
    r = serve::parse_translate_request(body, limits);
  } catch (const serve::ApiError& e) {
    fuzz::require(e.status() == 400 || e.status() == 413, "refusals are 400 or 413");
    return 0;
  }
  fuzz::require(!r.sentences.empty() && r.sentences.size() <= limits.max_sentences,
                "1..max_sentences sentences");
  for (const auto& s : r.sentences)
    fuzz::require(s.size() <= limits.max_sentence_bytes, "sentences within the byte limit");
  fuzz::require(r.nbest >= 1 && r.nbest <= r.beam && r.beam <= limits.max_beam,
                "1 <= nbest <= beam <= max_beam");
  nlohmann::json j = {{"sentences", r.sentences}, {"beam", r.beam}, {"nbest", r.nbest},
                      {"attention", r.attention}, {"saliency", r.saliency}};
  if (r.alignment) {
    char t[32];
    const auto end = std::to_chars(t, t + sizeof t, r.alignment->threshold).ptr;  // round trip
    j["alignment"] = r.alignment->mode == AlignmentMode::hard   ? std::string("hard")
                     : r.alignment->mode == AlignmentMode::soft ? std::string("soft")
                                                                : std::string(t, end);
  }
  const serve::TranslateRequest again = serve::parse_translate_request(j.dump(), limits);
  fuzz::require(again.sentences == r.sentences && again.beam == r.beam &&
                    again.nbest == r.nbest && again.attention == r.attention &&
                    again.saliency == r.saliency &&
                    again.alignment.has_value() == r.alignment.has_value(),
                "a request written back as JSON parses to the same request");
  return 0;
}
