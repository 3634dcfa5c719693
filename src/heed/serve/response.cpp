#include "heed/serve/response.h"

#include <nlohmann/json.hpp>

namespace heed::serve {

std::string translate_response(const std::vector<Translation>& translations,
                               const TranslateRequest& request, const Translator& translator,
                               const std::string& model, double milliseconds) {
  using nlohmann::json;
  const Tokenizer& src_tok = *translator.model(0).src_tokenizer;
  const Tokenizer& tgt_tok = *translator.model(0).tgt_tokenizer;
  json out = json::array();
  for (const Translation& t : translations) {
    json nbest = json::array();
    for (const TranslatedHypothesis& h : t.nbest) {
      json hyp = {{"text", h.text}, {"score", h.score}, {"output", h.output}};
      if (request.attention && !h.attention.empty()) {
        json rows = json::array();
        const std::size_t cols = t.source.size();
        for (std::size_t r = 0; r < h.output.size(); ++r)
          rows.push_back(std::vector<float>(h.attention.begin() + static_cast<std::ptrdiff_t>(r * cols),
                                            h.attention.begin() + static_cast<std::ptrdiff_t>((r + 1) * cols)));
        hyp["attention"] = std::move(rows);
      }
      if (request.alignment && !h.attention.empty())
        hyp["alignment"] = alignment_text(make_attention_matrix(t.source, h.output, h.attention),
                                          *request.alignment, src_tok, tgt_tok);
      nbest.push_back(std::move(hyp));
    }
    out.push_back({{"source", t.source}, {"skipped", t.skipped}, {"nbest", std::move(nbest)}});
  }
  return json{{"translations", std::move(out)}, {"model", model}, {"milliseconds", milliseconds}}
      .dump();
}

}  // namespace heed::serve
