#pragma once
// The saliency map of each translation's best hypothesis (what `heed serve` answers with
// "saliency" and `heed show` draws), and for a model with several attention heads per layer
// (the Transformer) every head's map: the hypothesis' own pieces are forced through the
// model again (LineTranslator::align_pieces), so nothing is lost to detokenising.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "heed/translate/line_translator.h"

namespace heed {

// What the forced pass gives one translation's best hypothesis, each map |best output| x
// |source| row-major, EOS included on both sides (the rows of the hypothesis' own output: no
// EOS row when it emitted none). Empty for a translation without a hypothesis or output, and
// where re-tokenising the rejoined source pieces does not give the same pieces back.
struct BestHypothesisMaps {
  std::vector<float> saliency;                 // with saliency only
  std::vector<std::vector<float>> heads;       // per layer, head_count maps one after another
  std::int64_t head_count = 0;                 // 0: the model has one attention (or none)
  // The self-attentions, head_count maps per layer as above: per encoder layer |source| x
  // |source|, per decoder layer |best output| x |best output|, row t the position that emits
  // output t and column j the one that reads <s> (j = 0) or output j - 1.
  std::vector<std::vector<float>> encoder_heads, decoder_heads;
};

// saliency: compute the saliency maps, which uses the parameters' gradient buffers: not
// concurrently with another saliency call on the same model (LineTranslator::align).
std::vector<BestHypothesisMaps> best_hypothesis_maps(
    const LineTranslator& translator, const std::vector<Translation>& translations,
    std::size_t batch_size, bool saliency,
    const std::function<void(std::size_t, std::size_t)>& progress = {});

// The saliency maps alone (best_hypothesis_maps with saliency).
std::vector<std::vector<float>> best_hypothesis_saliency(
    const LineTranslator& translator, const std::vector<Translation>& translations,
    std::size_t batch_size, const std::function<void(std::size_t, std::size_t)>& progress = {});

}  // namespace heed
