#include "heed/translate/best_saliency.h"

#include <algorithm>
#include <string>

#include "heed/data/vocabulary.h"

namespace heed {

std::vector<BestHypothesisMaps> best_hypothesis_maps(
    const LineTranslator& translator, const std::vector<Translation>& translations,
    std::size_t batch_size, bool saliency,
    const std::function<void(std::size_t, std::size_t)>& progress) {
  std::vector<std::string> sources;
  std::vector<std::vector<std::string>> outputs;
  std::vector<std::size_t> which;
  for (std::size_t i = 0; i < translations.size(); ++i) {
    const Translation& t = translations[i];
    if (t.nbest.empty() || t.source.size() < 2) continue;
    std::vector<std::string> out = t.nbest.front().output;
    if (!out.empty() && out.back() == Vocabulary::kEosToken) out.pop_back();
    if (out.empty()) continue;
    // The source pieces as the model saw them, rejoined by its tokeniser.
    sources.push_back(translator.model(0).src_tokenizer->decode(
        std::vector<std::string>(t.source.begin(), t.source.end() - 1)));
    outputs.push_back(std::move(out));
    which.push_back(i);
  }
  std::vector<BestHypothesisMaps> maps(translations.size());
  if (which.empty()) return maps;
  const std::vector<ForcedAlignment> forced =
      translator.align_pieces(sources, outputs, batch_size, saliency, progress);
  for (std::size_t k = 0; k < which.size(); ++k) {
    // The forced pass ends in EOS whether or not the hypothesis emitted one: keep the rows of
    // the hypothesis' own output.
    const Translation& t = translations[which[k]];
    const std::size_t rows = t.nbest.front().output.size(), cols = t.source.size();
    const ForcedAlignment& f = forced[k];
    if (f.source.size() != cols) continue;  // re-tokenising changed the source: no map
    const std::size_t keep = std::min(rows, f.target.size()) * cols;
    const auto first = [&](const std::vector<float>& all, std::size_t offset) {
      return std::vector<float>(all.begin() + static_cast<std::ptrdiff_t>(offset),
                                all.begin() + static_cast<std::ptrdiff_t>(offset + keep));
    };
    BestHypothesisMaps& m = maps[which[k]];
    if (saliency) m.saliency = first(f.saliency, 0);
    m.head_count = f.head_count;
    for (const std::vector<float>& layer : f.heads) {
      std::vector<float> heads;  // each head's |target| x |source| block cut to `keep`
      const std::size_t block = f.target.size() * cols;
      for (std::int64_t h = 0; h < f.head_count; ++h) {
        const std::vector<float> one = first(layer, static_cast<std::size_t>(h) * block);
        heads.insert(heads.end(), one.begin(), one.end());
      }
      m.heads.push_back(std::move(heads));
    }
    m.encoder_heads = f.encoder_heads;
    const std::size_t n = f.target.size(), r = std::min(rows, n);
    for (const std::vector<float>& layer : f.decoder_heads) {
      std::vector<float> heads;  // each head's n x n block cut to its first r rows and columns
      for (std::int64_t h = 0; h < f.head_count; ++h)
        for (std::size_t t = 0; t < r; ++t) {
          const auto row = layer.begin() + static_cast<std::ptrdiff_t>(
                                               (static_cast<std::size_t>(h) * n + t) * n);
          heads.insert(heads.end(), row, row + static_cast<std::ptrdiff_t>(r));
        }
      m.decoder_heads.push_back(std::move(heads));
    }
  }
  return maps;
}

std::vector<std::vector<float>> best_hypothesis_saliency(
    const LineTranslator& translator, const std::vector<Translation>& translations,
    std::size_t batch_size, const std::function<void(std::size_t, std::size_t)>& progress) {
  std::vector<std::vector<float>> out;
  for (BestHypothesisMaps& m : best_hypothesis_maps(translator, translations, batch_size, true, progress))
    out.push_back(std::move(m.saliency));
  return out;
}

}  // namespace heed
