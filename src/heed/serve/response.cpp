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

// maps[layer] holds heads maps of rows x cols one after another: [layer][head][row][col].
nlohmann::json heads_json(const std::vector<std::vector<float>>& maps, std::int64_t heads,
                          std::size_t rows, std::size_t cols) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::vector<float>& layer : maps) {
    nlohmann::json l = nlohmann::json::array();
    for (std::int64_t h = 0; h < heads; ++h) {
      const auto at = layer.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(h) *
                                                                  rows * cols);
      l.push_back(rows_json(std::vector<float>(at, at + static_cast<std::ptrdiff_t>(rows * cols)),
                            rows, cols));
    }
    out.push_back(std::move(l));
  }
  return out;
}

// A Transformer's best hypothesis' heads (BestHypothesisMaps): "cross" the encoder-decoder
// attention (rows the output, columns the source), "encoder" the encoder's self-attention
// (source by source), "decoder" the decoder's (rows the output, columns "decoder_inputs":
// <s>, then the output but its last token).
nlohmann::json heads_json(const BestHypothesisMaps& m, const std::vector<std::string>& source,
                          const std::vector<std::string>& output) {
  const std::size_t H = static_cast<std::size_t>(m.head_count), cols = source.size();
  const std::size_t rows = m.heads.front().size() / H / cols;
  std::vector<std::string> inputs{"<s>"};
  inputs.insert(inputs.end(), output.begin(), output.begin() + static_cast<std::ptrdiff_t>(rows));
  inputs.pop_back();
  return {{"count", m.head_count},
          {"rows", rows},
          {"cross", heads_json(m.heads, m.head_count, rows, cols)},
          {"encoder", heads_json(m.encoder_heads, m.head_count, cols, cols)},
          {"decoder", heads_json(m.decoder_heads, m.head_count, rows, rows)},
          {"decoder_inputs", inputs}};
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
      if (request.heads && nbest.empty() && i < result.heads.size() &&
          result.heads[i].head_count > 0 && !result.heads[i].heads.empty())
        hyp["heads"] = heads_json(result.heads[i], t.source, h.output);
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
