#include "heed/translate/best_saliency.h"

#include <algorithm>
#include <string>

#include "heed/data/vocabulary.h"

namespace heed {

std::vector<std::vector<float>> best_hypothesis_saliency(
    const LineTranslator& translator, const std::vector<Translation>& translations,
    std::size_t batch_size, const std::function<void(std::size_t, std::size_t)>& progress) {
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
  std::vector<std::vector<float>> maps(translations.size());
  if (which.empty()) return maps;
  const std::vector<ForcedAlignment> forced =
      translator.align_pieces(sources, outputs, batch_size, /*saliency=*/true, progress);
  for (std::size_t k = 0; k < which.size(); ++k) {
    // The forced pass ends in EOS whether or not the hypothesis emitted one: keep the rows of
    // the hypothesis' own output.
    const Translation& t = translations[which[k]];
    const std::size_t rows = t.nbest.front().output.size(), cols = t.source.size();
    const ForcedAlignment& f = forced[k];
    if (f.source.size() != cols) continue;  // re-tokenising changed the source: no map
    maps[which[k]].assign(
        f.saliency.begin(),
        f.saliency.begin() + static_cast<std::ptrdiff_t>(std::min(rows, f.target.size()) * cols));
  }
  return maps;
}

}  // namespace heed
