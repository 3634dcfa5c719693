#include "heed/serve/response.h"

#include <nlohmann/json.hpp>

namespace heed::serve {

namespace {

// |rows| x cols row-major as a JSON array of rows.
nlohmann::json rows_json(const std::vector<float>& m, std::size_t rows, std::size_t cols) {
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t r = 0; r < rows && (r + 1) * cols <= m.size(); ++r)
    out.push_back(std::vector<float>(m.begin() + static_cast<std::ptrdiff_t>(r * cols),
                                     m.begin() + static_cast<std::ptrdiff_t>((r + 1) * cols)));
  return out;
}

}  // namespace

std::string translate_response(const ServiceResult& result, const TranslateRequest& request,
                               const LineTranslator& translator, const std::string& model,
                               double milliseconds) {
  const std::vector<Translation>& translations = result.translations;
  using nlohmann::json;
  const Tokenizer& src_tok = *translator.model(0).src_tokenizer;
  const Tokenizer& tgt_tok = *translator.model(0).tgt_tokenizer;
  json out = json::array();
  for (const Translation& t : translations) {
    json nbest = json::array();
    for (const TranslatedHypothesis& h : t.nbest) {
      json hyp = {{"text", h.text}, {"score", h.score}, {"output", h.output}};
      if (!h.p_gen.empty()) {  // copy attention: p_gen and whether each token was copied
        hyp["p_gen"] = h.p_gen;
        std::vector<bool> copied(h.copied.begin(), h.copied.end());
        hyp["copied"] = copied;
      }
      if (request.attention && !h.attention.empty())
        hyp["attention"] = rows_json(h.attention, h.output.size(), t.source.size());
      const std::size_t i = static_cast<std::size_t>(&t - translations.data());
      if (request.saliency && nbest.empty() && i < result.saliency.size() &&
          !result.saliency[i].empty())
        hyp["saliency"] = rows_json(result.saliency[i], h.output.size(), t.source.size());
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
